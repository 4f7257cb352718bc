// make_dataset.mjs TREE OUT FILES ROWS_PER_GROUP: the ImageFolder tree
// TREE as FILES Parquet files in OUT, as the Hugging Face datasets
// library publishes an image dataset (train-0000K-of-0000N.parquet, the
// layout of hf_layout.mjs, Snappy), rows in torchvision's order. For
// bench/parquet_pack.sh; needs the npm packages of package.json beside
// it (npm install).
import fs from 'fs'
import path from 'path'
import { treeRows, writeHf } from './hf_layout.mjs'

const [tree, out, nfiles, perGroup] = process.argv.slice(2)
const { classes, rows } = treeRows(tree)
const pad = (k) => String(k).padStart(5, '0')
const per = Math.ceil(rows.length / Number(nfiles))
fs.mkdirSync(out, { recursive: true })
for (let k = 0; k < Number(nfiles); k++) {
  const part = rows.slice(k * per, (k + 1) * per).map((r) => ({
    image: { bytes: new Uint8Array(fs.readFileSync(path.join(tree, r.path))),
      path: r.path },
    label: r.label,
  }))
  writeHf(path.join(out, `train-${pad(k)}-of-${pad(nfiles)}.parquet`), part,
    'SNAPPY', Number(perGroup), classes)
}
