#!/usr/bin/env bash
# Smoke test of burn as a user installs it: the wheel (with its `host` extra) in a fresh venv,
# every command run from a folder outside the checkout, with a fresh burn cache, so nothing
# is read from the checkout or built before.
#
#   .ci/wheel_smoke.sh [WHEEL]      default: a wheel built now from this checkout
#
# Models: $BURN_MODELS_DIR/kws_ref_model.tflite (default ../shared/models beside the
# checkout); without it a small MLP .tflite made by tests/mlp_model.py is imported instead.
# Exits non-zero when any step fails; prints one line per step with its time.
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/burn-wheel-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failed=()
start=$SECONDS

step() {  # step NAME COMMAND...: run it in $work/run, log its output, time it
    local name="$1" t0=$SECONDS rc
    shift
    (cd "$work/run" && "$@") >"$work/log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "smoke: ok    $name ($((SECONDS - t0)) s)"
    else
        echo "smoke: FAIL  $name (exit $rc, $((SECONDS - t0)) s); its last lines:"
        tail -n 25 "$work/log" | sed 's/^/    /'
        failed+=("$name")
    fi
    return "$rc"
}

expect() {  # expect TEXT COMMAND...: the command succeeds and prints TEXT
    local text="$1" out
    shift
    out="$("$@")" || return
    echo "$out"
    grep -qF -- "$text" <<<"$out" || { echo "expected: $text"; return 1; }
}

mkdir -p "$work/run" "$work/dist"
wheel="${1:-}"
if [ -z "$wheel" ]; then
    step "build the wheel" "$python" -m pip wheel -q --no-deps --no-build-isolation \
        -w "$work/dist" "$repo" || exit 1
    wheel="$(ls "$work"/dist/*.whl)"
fi
wheel="$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")"
echo "smoke: wheel $(basename "$wheel")"

step "fresh venv + pip install wheel[host]" bash -c \
    "'$python' -m venv '$work/venv' && '$work/venv/bin/pip' install -q '$wheel[host]'" || exit 1
export PATH="$work/venv/bin:$PATH" BURN_CACHE_DIR="$work/cache"
unset VIRTUAL_ENV PYTHONPATH

step "burn is the installed one" expect "$work/venv/" python -c \
    "import burn, burn.host; print(burn.__file__)"
step "burn --version" burn --version
step "burn doctor (burn._flex built)" expect "built (" burn doctor

models="${BURN_MODELS_DIR:-$repo/../shared/models}"
model="$models/kws_ref_model.tflite"
if [ ! -f "$model" ]; then
    echo "smoke: $model not found: importing a small MLP made by tests/mlp_model.py"
    model="$work/run/tiny_mlp.tflite"
    step "make a small .tflite" env PYTHONPATH="$repo/tests" python -c \
        "from mlp_model import TINY_SIZES, mlp; open('$model', 'wb').write(mlp(TINY_SIZES))"
fi
step "burn import $(basename "$model")" burn import "$model" -o model.bst
step "burn info model.bst" burn info model.bst
step "burn demo --epochs 1 (virtual board)" burn demo --epochs 1 --virtual --out demo
step "burn flex build --target cortex-m0plus" burn flex build --target cortex-m0plus \
    -o libflex.a
step "burn compile --target cortex-m0plus (a C library)" expect "self-tests" burn compile \
    model.bst -o model_c --name model --target cortex-m0plus
step "the compiled library's files" test -f model_c/src/model.c -a -f model_c/src/flex.h \
    -a -f model_c/library.json -a -f model_c/CMakeLists.txt
step "one training run (Learner, 1 epoch)" python -c "
import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.data import DataLoader, load_digits, random_split
from burn.host.train.learner import Learner
from burn.host.train.optim import Adam

dev = autodiff_device('numpy')
burn.seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)).to(dev)
train, valid = random_split(load_digits(), [0.8, 0.2], seed=0)
learner = Learner(model, Adam(model.parameters(), lr=3e-3), run_dir='runs/smoke')
result = learner.fit(DataLoader(train, 32, shuffle=True, device=dev),
                     DataLoader(valid, 512, device=dev), epochs=1)
accuracy = result.best('valid_accuracy')['valid_accuracy']
print('valid accuracy', accuracy)
assert accuracy > 0.5, accuracy
"
step "burn firmware finds its sources (rp2040 input key)" python -c "
from burn.host.firmware import inputs
from burn.host.firmware.recipe import load_recipe
recipe = load_recipe('rp2040')
assert recipe.board_dir.is_dir() and recipe.manifest.is_file(), recipe.board_dir
assert inputs.has_flex_module()
print(recipe.board_dir, inputs.cache_key(recipe, '1.28.0', 'smoke')[:16])
"

echo "smoke: $((SECONDS - start)) s in all, ${#failed[@]} failed"
[ "${#failed[@]}" -eq 0 ]
