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
//   minus-one.parquet     labels -1 (no class, as the datasets library
//                         marks one) and -2
//   large.parquet         row groups of images over 1 MiB
//   empty-image.parquet   an empty image in a row group without nulls
//   no-stats.parquet      a null image in a file without statistics
//   split-0.parquet, split-1.parquet, split-1-less.parquet
//                         the rows in two files, and the second less
//                         its first row (for updates)
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
import { hfMetadata, hfSchema, treeRows, writeHf } from './hf_layout.mjs'

const [tree, out] = process.argv.slice(2)
const listed = treeRows(tree)
const classes = listed.classes
const rows = listed.rows.map((r) => ({
  image: { bytes: new Uint8Array(fs.readFileSync(path.join(tree, r.path))),
    path: r.path },
  label: r.label,
}))
const hf = hfMetadata(classes)
fs.mkdirSync(out, { recursive: true })

writeHf(path.join(out, 'hf-snappy.parquet'), rows, 'SNAPPY', 16, classes)

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
writeHf(path.join(out, 'nulls.parquet'), edge, 'UNCOMPRESSED', undefined,
  classes)
writeHf(path.join(out, 'other-classes.parquet'), rows.slice(0, 2),
  'UNCOMPRESSED', undefined, [...classes].reverse())
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

// The rows in two files, for updates (split-0.parquet: the first half,
// split-1.parquet: the rest), and split-1's rows but its first
// (split-1-less.parquet): a file that changed. hyparquet-writer, Snappy.
writeHf(path.join(out, 'split-0.parquet'), rows.slice(0, 20), 'SNAPPY', 16,
  classes)
writeHf(path.join(out, 'split-1.parquet'), rows.slice(20), 'SNAPPY', 16,
  classes)
writeHf(path.join(out, 'split-1-less.parquet'), rows.slice(21), 'SNAPPY',
  16, classes)

// Labels the datasets library writes for rows without a class (-1: a
// missing ClassLabel, as in a test split), and one no class has (-2)
// (minus-one.parquet). hyparquet-writer, uncompressed.
writeHf(path.join(out, 'minus-one.parquet'), rows.slice(0, 3).map((r, i) =>
  ({ image: r.image, label: [-1n, 1n, -2n][i] })), 'UNCOMPRESSED', undefined,
classes)

// Row groups of images over 1 MiB (large.parquet: two groups of 6 rows,
// each 200 KB of deterministic noise behind a JPEG's first bytes), as
// real images make them: an object's such chunk is fetched whole.
// hyparquet-writer, Snappy.
let state = 46
const noise = (n) => {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    b[i] = state >>> 24
  }
  b.set([0xff, 0xd8, 0xff, 0xe0])
  return b
}
writeHf(path.join(out, 'large.parquet'), Array.from({ length: 12 }, (_, i) =>
  ({ image: { bytes: noise(200000), path: `n00000000/large_${i}.JPEG` },
    label: 0n })), 'SNAPPY', 6, classes)

// An empty image where the statistics count no null (empty-image.parquet:
// the listing leaves such images unread, so the feed must refuse it),
// and a null image in a file written without statistics (no-stats.parquet:
// nothing promises the images whole, so the listing reads them).
// hyparquet-writer, Snappy.
const second = rows[1]
writeHf(path.join(out, 'empty-image.parquet'), [first,
  { image: { bytes: new Uint8Array(0), path: 'n00000000/empty.JPEG' },
    label: 0n }, second], 'SNAPPY', undefined, classes)
parquetWriteFile({
  filename: path.join(out, 'no-stats.parquet'),
  codec: 'SNAPPY',
  statistics: false,
  columnData: [
    { name: 'image', data: [first.image, null, second.image] },
    { name: 'label', data: [first.label, 0n, second.label] },
  ],
  schema: hfSchema(true),
  kvMetadata: [{ key: 'huggingface', value: hf }],
})
