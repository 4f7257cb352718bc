// make_fixtures.mjs TREE OUT: the ImageFolder tree TREE (flat classes)
// as Parquet files in the Hugging Face layout, written by two writers
// that are not bale: an `image` struct of `bytes` and `path`, an int64
// `label`, and the `huggingface` key-value metadata naming the classes
// (ClassLabel). Rows in torchvision's order (classes, then files, by
// name), the path "CLASS/FILE".
//
//   hf-snappy.parquet     hyparquet-writer: Snappy, 16 rows a row group
//   duckdb-zstd.parquet   DuckDB: ZSTD, data pages v1
//   duckdb-gzip-v2.parquet  DuckDB: gzip, data pages v2
//   duckdb-text-labels.parquet  DuckDB: labels as class names (text),
//                         rows of the last class first
//   nulls.parquet, other-classes.parquet, nolabel.parquet
//                         rows to skip, other class names, no label
//   flat-columns.parquet  images and labels in flat columns of other
//                         names
//
// Needs the npm packages of package.json beside it; the fixtures are
// committed, so the suite does not run this. fixtures/tree.tar is the
// tree they were made from (bale-mkdata random TREE -n 40 --classes 3
// --min 16 --max 40 --seed 46); to make them again:
//   cd tests/parquet && npm install && mkdir -p /tmp/t &&
//   tar -xf fixtures/tree.tar -C /tmp/t && node make_fixtures.mjs /tmp/t fixtures
import { parquetWriteFile } from 'hyparquet-writer'
import { DuckDBInstance } from '@duckdb/node-api'
import fs from 'fs'
import path from 'path'

const [tree, out] = process.argv.slice(2)
const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
const classes = fs.readdirSync(tree).filter(
  (c) => fs.statSync(path.join(tree, c)).isDirectory()).sort(byName)
const rows = []
classes.forEach((c, label) => {
  for (const f of fs.readdirSync(path.join(tree, c)).sort(byName)) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(tree, c, f)))
    rows.push({ image: { bytes, path: `${c}/${f}` }, label: BigInt(label) })
  }
})
const hf = JSON.stringify({
  info: {
    features: {
      image: { _type: 'Image' },
      label: { names: classes, _type: 'ClassLabel' },
    },
  },
})
fs.mkdirSync(out, { recursive: true })

parquetWriteFile({
  filename: path.join(out, 'hf-snappy.parquet'),
  codec: 'SNAPPY',
  rowGroupSize: 16,
  columnData: [
    { name: 'image', data: rows.map((r) => r.image) },
    { name: 'label', data: rows.map((r) => r.label) },
  ],
  schema: [
    { name: 'schema', num_children: 2 },
    { name: 'image', repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
    { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8',
      repetition_type: 'OPTIONAL' },
    { name: 'label', type: 'INT64', repetition_type: 'OPTIONAL' },
  ],
  kvMetadata: [{ key: 'huggingface', value: hf }],
})

const db = await (await DuckDBInstance.create(':memory:')).connect()
const q = (s) => s.replace(/'/g, "''")
const files = rows.map((r) => `('${q(path.resolve(tree, r.image.path))}', ` +
  `'${q(r.image.path)}', ${r.label})`)
await db.run(`CREATE TABLE files AS SELECT * FROM (VALUES ${files.join(', ')})
  t(filename, path, label)`)
await db.run(`CREATE TABLE rows AS
  SELECT {'bytes': b.content, 'path': f.path} AS image, f.label::BIGINT AS label
  FROM read_blob('${q(path.resolve(tree))}/*/*') b
  JOIN files f ON f.filename = b.filename`)
for (const [name, opts] of [
  ['duckdb-zstd.parquet', 'COMPRESSION zstd'],
  ['duckdb-gzip-v2.parquet', 'COMPRESSION gzip, PARQUET_VERSION V2'],
]) {
  await db.run(`COPY (SELECT * FROM rows ORDER BY label, image.path)
    TO '${q(path.join(out, name))}' (FORMAT parquet, ${opts},
    ROW_GROUP_SIZE 16, KV_METADATA {huggingface: '${q(hf)}'})`)
}
// the label as the class's name (text), the last class's rows first:
// no ClassLabel, so the classes are the names, sorted
await db.run(`COPY (SELECT image, split_part(image.path, '/', 1) AS label
  FROM rows ORDER BY label DESC, image.path)
  TO '${q(path.join(out, 'duckdb-text-labels.parquet'))}'
  (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 16)`)

// Rows bale must skip, each with its reason (nulls.parquet: a null
// image, an image with null bytes, an empty image, a null label; the
// first and last rows are whole), the same dataset naming its classes
// otherwise (other-classes.parquet), and one with no label column
// (nolabel.parquet). hyparquet-writer, uncompressed.
const hfSchema = (withLabel) => [
  { name: 'schema', num_children: withLabel ? 2 : 1 },
  { name: 'image', repetition_type: 'OPTIONAL', num_children: 2 },
  { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
  { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8',
    repetition_type: 'OPTIONAL' },
  ...(withLabel ? [{ name: 'label', type: 'INT64',
    repetition_type: 'OPTIONAL' }] : []),
]
const meta = (names) => [{ key: 'huggingface', value: JSON.stringify({
  info: { features: { image: { _type: 'Image' },
    label: { names, _type: 'ClassLabel' } } } }) }]
const first = rows[0]
const edge = [
  first,
  { image: null, label: 0n },
  { image: { bytes: null, path: 'n00000000/no-bytes.JPEG' }, label: 0n },
  { image: { bytes: new Uint8Array(0), path: 'n00000000/empty.JPEG' },
    label: 0n },
  { image: { bytes: first.image.bytes, path: 'n00000000/no-label.JPEG' },
    label: null },
  rows[rows.length - 1],
]
parquetWriteFile({
  filename: path.join(out, 'nulls.parquet'),
  codec: 'UNCOMPRESSED',
  columnData: [
    { name: 'image', data: edge.map((r) => r.image) },
    { name: 'label', data: edge.map((r) => r.label) },
  ],
  schema: hfSchema(true),
  kvMetadata: meta(classes),
})
parquetWriteFile({
  filename: path.join(out, 'other-classes.parquet'),
  codec: 'UNCOMPRESSED',
  columnData: [
    { name: 'image', data: rows.slice(0, 2).map((r) => r.image) },
    { name: 'label', data: rows.slice(0, 2).map((r) => r.label) },
  ],
  schema: hfSchema(true),
  kvMetadata: meta([...classes].reverse()),
})
parquetWriteFile({
  filename: path.join(out, 'nolabel.parquet'),
  codec: 'UNCOMPRESSED',
  columnData: [{ name: 'image', data: rows.slice(0, 2).map((r) => r.image) }],
  schema: hfSchema(false),
})

// Flat columns, no struct and no metadata (flat-columns.parquet): the
// images in `jpg` (binary), a second binary column `thumb` (so no column
// is the images by default), the labels in `fine_label`.
parquetWriteFile({
  filename: path.join(out, 'flat-columns.parquet'),
  codec: 'SNAPPY',
  columnData: [
    { name: 'jpg', data: rows.map((r) => r.image.bytes) },
    { name: 'thumb', data: rows.map(() => new Uint8Array([1, 2, 3])) },
    { name: 'fine_label', data: rows.map((r) => r.label) },
  ],
  schema: [
    { name: 'schema', num_children: 3 },
    { name: 'jpg', type: 'BYTE_ARRAY', repetition_type: 'REQUIRED' },
    { name: 'thumb', type: 'BYTE_ARRAY', repetition_type: 'REQUIRED' },
    { name: 'fine_label', type: 'INT64', repetition_type: 'REQUIRED' },
  ],
})
