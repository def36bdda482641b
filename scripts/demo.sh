#!/usr/bin/env bash
# make demo: the gpufleet story on both clouds, offline, on examples/quickstart. cloudsim plays EKS,
# EC2, GKE and Compute on their real wire protocols; terraform runs the provider from bin/ through a
# dev_overrides CLI config (no registry, no init); conftest runs the same policy bundle on the plan
# JSON, as CI does. Every step checks what it shows: the demo exits non-zero when one misbehaves.
#
# DEMO_DELAY (default 500ms) is how long cloudsim keeps objects in transitional statuses; the test
# that runs the demo in CI shortens it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-demo.XXXXXX")"
qs="$work/quickstart"
sim_pid=""
started=$SECONDS

stop_cloudsim() {
  if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2>/dev/null; then
    kill -TERM "$sim_pid"
    wait "$sim_pid" 2>/dev/null || true
  fi
  sim_pid=""
}
cleanup() {
  stop_cloudsim
  rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() {
  printf '\n\033[31mdemo failed: %s\033[0m\n' "$*" >&2
  [ -s "$work/last.txt" ] && { echo "--- last terraform output:" >&2; tail -40 "$work/last.txt" >&2; }
  exit 1
}
# tf runs terraform in the quickstart's copy and keeps its output in last.txt (without the dev
# overrides banner); it returns terraform's exit code.
tf() {
  local rc=0
  terraform -chdir="$qs" "$@" -no-color >"$work/raw.txt" 2>&1 || rc=$?
  sed -e '/Provider development overrides are in effect/,/^releases\.$/d' -e '/^[│╷╵ ]*$/d' "$work/raw.txt" >"$work/last.txt"
  return $rc
}
shows() { grep -Eq -- "$1" "$work/last.txt" || fail "${2:-expected output matching /$1/}"; }
show() { grep -E -- "$1" "$work/last.txt" | head -"${2:-20}" || true; }
# warnings prints the policy warnings of the last terraform output, each with its message.
warnings() { awk '/^Warning: Policy/ {w = 1; print; next} w && /^ *(with|on) |^ *[0-9]+:/ {next} w && /^[A-Z]/ && !/^GF-/ {w = 0} w' "$work/last.txt"; }
ctl() { curl -fsS "$@"; }
# calls counts the mutating API calls cloudsim has served so far.
calls() {
  ctl "$CONTROL_ENDPOINT/requests" | grep -o '"operation": *"[A-Za-z]*"' | grep -cvE '"(Describe|Get|List)' || true
}
state_is_empty() {
  local state
  state=$(ctl "$CONTROL_ENDPOINT/state")
  grep -q '"nodegroups": *\[\]' <<<"$state" && grep -q '"launch_templates": *\[\]' <<<"$state" && grep -q '"node_pools": *\[\]' <<<"$state"
}

for tool in terraform conftest curl; do
  command -v "$tool" >/dev/null || [ -x "$bin/$tool" ] || fail "$tool is not installed (make demo installs conftest into bin/)"
done
export PATH="$bin:$PATH"
cat >"$work/terraformrc" <<CFG
provider_installation {
  dev_overrides {
    "gpufleet/gpufleet" = "$bin"
  }
  direct {}
}
CFG
export TF_CLI_CONFIG_FILE="$work/terraformrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
export AWS_ACCESS_KEY_ID=AKIADEMO AWS_SECRET_ACCESS_KEY=demo AWS_EC2_METADATA_DISABLED=true

say "0. cloudsim: EKS (REST-JSON), EC2 (Query/XML), GKE (gRPC) and Compute (REST) on free loopback ports"
"$bin/cloudsim" -seed "$root/examples/cloudsim/seed.json" -state "$work/cloudsim-state.json" \
  -delay "${DEMO_DELAY:-500ms}" -env-file "$work/endpoints.env" >"$work/cloudsim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do [ -s "$work/endpoints.env" ] && break; sleep 0.1; done
[ -s "$work/endpoints.env" ] || fail "cloudsim did not start: $(cat "$work/cloudsim.log")"
# shellcheck disable=SC1091
source "$work/endpoints.env"
echo "EKS $EKS_ENDPOINT  EC2 $EC2_ENDPOINT  Auto Scaling $AUTOSCALING_ENDPOINT  GKE $GKE_ENDPOINT  Compute $COMPUTE_ENDPOINT  control $CONTROL_ENDPOINT"
cp -r "$root/examples/quickstart" "$qs"
cat >"$qs/cloudsim.auto.tfvars" <<VARS
eks_endpoint     = "$EKS_ENDPOINT"
ec2_endpoint     = "$EC2_ENDPOINT"
autoscaling_endpoint = "$AUTOSCALING_ENDPOINT"
gke_endpoint     = "$GKE_ENDPOINT"
compute_endpoint = "$COMPUTE_ENDPOINT"
VARS

say "1. terraform plan: GPUs, taints, cost and the policy's findings are known before anything exists"
tf plan -input=false -out="$work/plan.out" || fail "the plan failed"
show 'will be created|^      \+ (gpu_model|gpus_per_node|estimated_monthly_cost_usd) |Plan:' 20
show '\+ "(gpufleet.io/client|nvidia.com/gpu)=' 3
show 'globex_recommendation' 2
warnings
shows 'Plan: 3 to add, 0 to change, 0 to destroy' "the plan does not create the three pools"
shows 'Warning: Policy GF-RS-002' "the plan does not warn that a whole T4 is oversized for the notebooks (GF-RS-002)"
shows 'g2-standard-8: 1 x L4 per node, 3 replicas per GPU' "gpufleet_recommendation did not pick time-sliced L4s for globex"

say "2. conftest on the plan JSON, as CI runs it: the same bundle, the same policy data"
terraform -chdir="$qs" show -json "$work/plan.out" >"$work/plan.json"
rc=0
conftest test --no-color --policy "$root/policies" --data "$qs/policy-data.yaml" "$work/plan.json" >"$work/conftest.txt" 2>&1 || rc=$?
cat "$work/conftest.txt"
[ "$rc" = 0 ] || fail "conftest failed the plan (exit $rc)"
grep -q 'WARN.*GF-RS-002: gpufleet_eks_node_pool.acme_notebooks' "$work/conftest.txt" || fail "conftest did not report what the provider warned about (GF-RS-002 on acme_notebooks)"
findings_warn=$(grep -c '^WARN' "$work/conftest.txt" || true)
findings_deny=$(grep -c '^FAIL' "$work/conftest.txt" || true)
echo
echo "... and on large plans, the pool documents built once by gpufleet-policy, judged by the release's bundle:"
echo "    gpufleet-policy bundle -o gpufleet-policies; gpufleet-policy documents -o pools.json plan.json"
"$bin/gpufleet-policy" bundle -o "$work/gpufleet-policies" || fail "gpufleet-policy bundle failed"
"$bin/gpufleet-policy" documents -o "$work/pools.json" "$work/plan.json" || fail "gpufleet-policy documents failed on the plan"
rc=0
conftest test --no-color --policy "$work/gpufleet-policies" --data "$qs/policy-data.yaml" "$work/pools.json" >"$work/conftest-documents.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "conftest failed the plan's pool documents (exit $rc)"
findings() { grep -E '^(WARN|FAIL)' "$1" | sed -E 's/^(WARN|FAIL) - [^ ]+ - /\1 - /' | sort; }
diff <(findings "$work/conftest.txt") <(findings "$work/conftest-documents.txt") >/dev/null ||
  fail "conftest reported other findings on the pool documents than on the plan"
echo "the same $((findings_warn + findings_deny)) finding(s), word for word"

say "3. terraform apply: EKS node groups with their launch templates, GKE node pools consuming globex's reservation"
tf apply -input=false "$work/plan.out" || fail "the apply failed"
show 'Creation complete|Apply complete' 10
shows 'Apply complete! Resources: 3 added, 0 changed, 0 destroyed' "the apply did not create the three pools"
tf output -json pools || fail "no pools output"
grep -q '"acme-train-spot SPOT' "$work/last.txt" || fail "acme's training pool has no spot node group"
grep -q '"globex-serve-od ON_DEMAND 2/4 RUNNING"' "$work/last.txt" || fail "globex's node pool is not running with its two nodes"
tf output pools && show 'sides|acme-|globex-|ON_DEMAND|SPOT' 20

say "4. A second plan is empty: what was applied is what the configuration says"
rc=0; tf plan -input=false -detailed-exitcode || rc=$?
[ "$rc" = 0 ] || fail "the plan after apply is not empty (exit $rc)"
show 'No changes' 1

say "5. Promote globex's time-sliced staging pool to production as it is: the policy denies it at plan"
cat >"$qs/promote_override.tf" <<'HCL'
resource "gpufleet_gke_node_pool" "globex_serve" {
  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 6.71
  }
}
HCL
before=$(calls)
rc=0; tf plan -input=false || rc=$?
[ "$rc" = 1 ] || fail "the plan that shares GPUs in production did not fail (exit $rc)"
show 'Error|GF-|with gpufleet|gpu.sharing' 8
shows 'GF-ISO-003' "the error does not name the rule (GF-ISO-003)"
shows 'gpu\.sharing' "the error does not point at gpu.sharing"
[ "$(calls)" = "$before" ] || fail "the denied plan changed something in the cloud"
echo "... and CI would stop it too: the same variant planned with enforcement = \"warn\", then conftest"
cat >"$qs/warn_override.tf" <<'HCL'
provider "gpufleet" {
  policy {
    enforcement = "warn"
    data_files  = ["policy-data.yaml"]
  }
}
HCL
tf plan -input=false -refresh=false -out="$work/denied.out" || fail "the plan with enforcement warn failed"
terraform -chdir="$qs" show -json "$work/denied.out" >"$work/denied.json"
rc=0
conftest test --no-color --policy "$root/policies" --data "$qs/policy-data.yaml" "$work/denied.json" >"$work/conftest-denied.txt" 2>&1 || rc=$?
grep -E '^FAIL' "$work/conftest-denied.txt" | head -3
[ "$rc" = 1 ] && grep -q 'FAIL.*GF-ISO-003: gpufleet_gke_node_pool.globex_serve' "$work/conftest-denied.txt" || fail "conftest did not fail the variant with GF-ISO-003 (exit $rc)"
rm "$qs/promote_override.tf" "$qs/warn_override.tf"

say "6. Bad input fails at plan, naming the attribute, before any cloud call (EKS, then GKE)"
cat >"$qs/bad_override.tf" <<'HCL'
resource "gpufleet_eks_node_pool" "acme_train" {
  gpu {
    mig {
      profile = "3g.20gb" # an A100-40GB profile, not an H100's
    }
  }
}
HCL
before=$(ctl "$CONTROL_ENDPOINT/requests" | grep -c '"operation"' || true)
rc=0; tf plan -input=false -refresh=false || rc=$?
[ "$rc" = 1 ] || fail "a MIG profile the H100 does not have did not fail the plan"
show 'Error|gpu.mig.profile|offers|profiles' 6
shows 'gpu\.mig\.profile' "the EKS error does not name gpu.mig.profile"
cat >"$qs/bad_override.tf" <<'HCL'
resource "gpufleet_gke_node_pool" "globex_serve" {
  gpu {
    type  = "nvidia-l4"
    count = 3 # g2-standard-8 comes with one L4
  }
}
HCL
rc=0; tf plan -input=false -refresh=false || rc=$?
[ "$rc" = 1 ] || fail "a GPU count the machine type does not have did not fail the plan"
show 'Error|gpu.count|g2-standard' 6
shows 'gpu\.count' "the GKE error does not name gpu.count"
[ "$(ctl "$CONTROL_ENDPOINT/requests" | grep -c '"operation"' || true)" = "$before" ] || fail "a plan with bad input called a cloud API"
echo "no API call was made for either"
rm "$qs/bad_override.tf"

say "7. 30 % of the calls throttled on EKS, EC2, GKE and Compute; the SDKs' retryers absorb it while acme's spot share goes to 100 %"
for svc in eks ec2 gke compute; do
  ctl -X POST "$CONTROL_ENDPOINT/faults" -d "{\"service\":\"$svc\",\"kind\":\"throttle\",\"rate\":0.3}" >/dev/null
done
tf apply -input=false -auto-approve -var acme_spot_percentage=100 || fail "the apply under throttling failed"
show 'Modifications complete|Apply complete' 5
shows 'Apply complete! Resources: 0 added, 1 changed, 0 destroyed' "the apply under throttling did not change the training pool"
throttled=$(ctl "$CONTROL_ENDPOINT/faults" | grep -o '"fired": *[0-9]*' | grep -o '[0-9]*$' | awk '{n += $1} END {print n + 0}')
echo "throttled calls, retried by the SDKs: $throttled"
[ "$throttled" -gt 0 ] || fail "no call was throttled"
ctl -X DELETE "$CONTROL_ENDPOINT/faults" >/dev/null

say "8. Someone changes the pools by hand (acme's spot node group scaled up, a GKE node pool relabelled): the plan shows the drift"
ctl -X POST "$CONTROL_ENDPOINT/oob/eks/scale-nodegroup" \
  -d '{"region":"us-east-1","cluster":"ml","nodegroup":"acme-train-spot","desired_size":6}' >/dev/null
ctl -X POST "$CONTROL_ENDPOINT/oob/gke/set-node-pool-label" \
  -d '{"project":"acme-ml","location":"europe-west4","cluster":"ml","node_pool":"globex-serve-od","key":"gpufleet.io/client","value":"initech"}' >/dev/null
rc=0; tf plan -input=false -detailed-exitcode -var acme_spot_percentage=100 || rc=$?
[ "$rc" = 2 ] || fail "the plan after the hand changes shows no drift (exit $rc)"
awk '/changed outside of Terraform/ {print "terraform sees what changed by hand:"; p = 1} /will perform the following actions/ {print "and plans to undo it:"}
  p && (/desired_size += [0-9]+ -> [0-9]+$/ || /gpufleet.io\/client" += / || /will be updated/ || /^Plan:/)' "$work/last.txt" | sed -E 's/^ +/  /; s/ {2,}/ /g' | awk '!seen[$0]++' 
shows 'gpufleet_eks_node_pool.acme_train will be updated' "the EKS resize is not shown"
shows 'gpufleet_gke_node_pool.globex_serve will be updated' "the GKE label change is not shown"
tf apply -input=false -auto-approve -var acme_spot_percentage=100 || fail "the apply that undoes the drift failed"
rc=0; tf plan -input=false -detailed-exitcode -var acme_spot_percentage=100 || rc=$?
[ "$rc" = 0 ] || fail "the drift is still there after apply (exit $rc)"
echo "terraform apply put both back: the next plan is empty"

say "Summary: pools, clients, GPUs now and monthly cost (list prices less the agency's 10 % discount)"
terraform -chdir="$qs" output -raw summary || fail "no summary output"
echo
echo "policy findings on the plan (conftest, with the client registry): $findings_deny deny, $findings_warn warn"

say "9. terraform destroy: nothing is left behind"
tf destroy -input=false -auto-approve -var acme_spot_percentage=100 || fail "the destroy failed"
show 'Destroy complete' 1
shows 'Destroy complete! Resources: 3 destroyed' "the destroy did not remove the three pools"
state_is_empty || fail "left behind in cloudsim: $(ctl "$CONTROL_ENDPOINT/state")"
echo "cloudsim holds no node group, launch template or GKE node pool"
stop_cloudsim
say "Done in $((SECONDS - started)) s; cloudsim stopped."
