// make_dataset.mjs TREE OUT FILES ROWS_PER_GROUP: the ImageFolder tree
// TREE as FILES Parquet files in OUT, as the Hugging Face datasets
// library publishes an image dataset (train-0000K-of-0000N.parquet: an
// `image` struct of `bytes` and `path`, an int64 `label`, Snappy, the
// `huggingface` metadata naming the classes), rows in torchvision's
// order. For bench/parquet_pack.sh; needs the npm packages of
// package.json beside it (npm install).
import { parquetWriteFile } from 'hyparquet-writer'
import fs from 'fs'
import path from 'path'

const [tree, out, nfiles, perGroup] = process.argv.slice(2)
const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
const classes = fs.readdirSync(tree).filter(
  (c) => fs.statSync(path.join(tree, c)).isDirectory()).sort(byName)
const rows = []
classes.forEach((c, label) => {
  for (const f of fs.readdirSync(path.join(tree, c)).sort(byName)) {
    rows.push({ path: `${c}/${f}`, label: BigInt(label) })
  }
})
const hf = JSON.stringify({ info: { features: { image: { _type: 'Image' },
  label: { names: classes, _type: 'ClassLabel' } } } })
const pad = (k) => String(k).padStart(5, '0')
const per = Math.ceil(rows.length / Number(nfiles))
fs.mkdirSync(out, { recursive: true })
for (let k = 0; k < Number(nfiles); k++) {
  const part = rows.slice(k * per, (k + 1) * per).map((r) => ({
    image: { bytes: new Uint8Array(fs.readFileSync(path.join(tree, r.path))),
      path: r.path },
    label: r.label,
  }))
  parquetWriteFile({
    filename: path.join(out, `train-${pad(k)}-of-${pad(nfiles)}.parquet`),
    codec: 'SNAPPY',
    rowGroupSize: Number(perGroup),
    columnData: [
      { name: 'image', data: part.map((r) => r.image) },
      { name: 'label', data: part.map((r) => r.label) },
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
}
