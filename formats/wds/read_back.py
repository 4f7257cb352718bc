"""A WebDataset output of bale-conformance, read back with plain file reads and json.
The contract of LAYOUTS is in tests/backend/read_back.py."""
import json
import os


def read_wds(d, classes):
    listing = json.load(open(os.path.join(d, "data-shards.json")))
    if listing["bale"]["classes"] != classes:
        raise ValueError("classes differ")
    index = []
    for shard in listing["shardlist"]:
        tar = os.path.join(d, shard["url"])
        lines = open(tar[:-4] + ".idx").read().splitlines()[1:]
        for line in lines:
            f = line.split()
            index.append((tar, {f[k]: (int(f[k + 1]), int(f[k + 2]))
                                for k in range(0, len(f), 4)}, f[3]))

    def get(i):
        tar, members, name = index[i]
        with open(tar, "rb") as fh:
            def member(ext):
                fh.seek(members[ext][0])
                return fh.read(members[ext][1])
            return (name.split(".")[0], member("bin"), int(member("cls")),
                    json.loads(member("json")))
    return len(index), get


LAYOUTS = {"default": (read_wds, True)}
