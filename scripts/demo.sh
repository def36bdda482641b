#!/usr/bin/env bash
# make demo: the gpufleet story offline. Runs the provider from bin/ through a dev_overrides CLI
# config (no registry, no init), then the policy bundle with conftest on plan JSON.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cat > "$work/terraformrc" <<CFG
provider_installation {
  dev_overrides {
    "gpufleet/gpufleet" = "$root/bin"
  }
  direct {}
}
CFG
export TF_CLI_CONFIG_FILE="$work/terraformrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "1. Catalog and MIG planning (terraform apply of data sources and provider functions)"
cp -r "$root/examples/demo/." "$work/demo"
terraform -chdir="$work/demo" apply -auto-approve -input=false -no-color 2>&1 | grep -v "Provider development overrides" | sed -n '/Outputs:/,$p'

say "2. Bad input fails at plan, naming the attribute, before any cloud call"
if terraform -chdir="$work/demo" plan -input=false -no-color -var gpu_memory_gib=-1 >"$work/bad.txt" 2>&1; then
  echo "expected a failure" >&2; exit 1
fi
grep -E "Error|must be|min_gpu_memory_gib" "$work/bad.txt" | head -5

say "3. Policy bundle with conftest on plan JSON (CI usage)"
if [ -d "$root/policies/testdata" ] && ls "$root"/policies/testdata/*.json >/dev/null 2>&1; then
  for plan in "$root"/policies/testdata/*.json; do
    echo "--- conftest test $(basename "$plan")"
    conftest test --no-color --policy "$root/policies" --data "$root/policies/examples/policy-data.yaml" "$plan" || true
  done
else
  echo "(no plan fixtures yet)"
fi
say "Done."
