// hf_layout.mjs - an ImageFolder tree as the Parquet files of a Hugging
// Face image dataset (an `image` struct of `bytes` and `path`, an int64
// `label`, the `huggingface` metadata naming the classes), as
// make_fixtures.mjs and make_dataset.mjs write it with hyparquet-writer.
import { parquetWriteFile } from 'hyparquet-writer'
import fs from 'fs'
import path from 'path'

const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)

// The class folders of TREE and its files, in torchvision's order (by
// name): { classes, rows: [{ path: 'CLASS/FILE', label }] }.
export function treeRows(tree) {
  const classes = fs.readdirSync(tree).filter(
    (c) => fs.statSync(path.join(tree, c)).isDirectory()).sort(byName)
  const rows = []
  classes.forEach((c, label) => {
    for (const f of fs.readdirSync(path.join(tree, c)).sort(byName)) {
      rows.push({ path: `${c}/${f}`, label: BigInt(label) })
    }
  })
  return { classes, rows }
}

// The `huggingface` metadata value naming the classes NAMES.
export const hfMetadata = (names) => JSON.stringify({
  info: { features: { image: { _type: 'Image' },
    label: { names, _type: 'ClassLabel' } } } })

// The schema of the layout, with or without its label column.
export const hfSchema = (withLabel) => [
  { name: 'schema', num_children: withLabel ? 2 : 1 },
  { name: 'image', repetition_type: 'OPTIONAL', num_children: 2 },
  { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
  { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8',
    repetition_type: 'OPTIONAL' },
  ...(withLabel ? [{ name: 'label', type: 'INT64',
    repetition_type: 'OPTIONAL' }] : []),
]

// ROWS ({ image: { bytes, path }, label }) into FILENAME in the layout,
// compressed with CODEC, ROW_GROUP_SIZE rows a row group (undefined:
// the writer's), the metadata naming NAMES.
export function writeHf(filename, rows, codec, rowGroupSize, names) {
  parquetWriteFile({
    filename,
    codec,
    rowGroupSize,
    columnData: [
      { name: 'image', data: rows.map((r) => r.image) },
      { name: 'label', data: rows.map((r) => r.label) },
    ],
    schema: hfSchema(true),
    kvMetadata: [{ key: 'huggingface', value: hfMetadata(names) }],
  })
}
