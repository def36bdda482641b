#!/usr/bin/env bash
# make demo: the gpufleet story on both clouds, offline, on examples/quickstart (and, beside its GKE
# pool, examples/computeclass: a GKE ComputeClass planned with no cluster, then applied). cloudsim
# plays EKS, EC2, GKE and Compute on their real wire protocols; terraform runs the provider from
# bin/ through a dev_overrides CLI config (no registry, no init); conftest runs the same policy bundle on the plan
# JSON, as CI does. Every step checks what it shows: the demo exits non-zero when one misbehaves.
#
# DEMO_DELAY (default 500ms) is how long cloudsim keeps objects in transitional statuses; the test
# that runs the demo in CI shortens it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-demo.XXXXXX")"
qs="$work/quickstart"
kp="$work/karpenter"
sim_pid=""
kube_pid=""
started=$SECONDS

stop_cloudsim() {
  if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2>/dev/null; then
    kill -TERM "$sim_pid"
    wait "$sim_pid" 2>/dev/null || true
  fi
  sim_pid=""
}
stop_kubeapi() {
  if [ -n "$kube_pid" ] && kill -0 "$kube_pid" 2>/dev/null; then
    kill -TERM "$kube_pid"
    wait "$kube_pid" 2>/dev/null || true
  fi
  kube_pid=""
}
cleanup() {
  stop_kubeapi
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
# tfk is tf in the Karpenter example's copy.
tfk() {
  local rc=0
  terraform -chdir="$kp" "$@" -no-color >"$work/raw.txt" 2>&1 || rc=$?
  sed -e '/Provider development overrides are in effect/,/^releases\.$/d' -e '/^[│╷╵ ]*$/d' "$work/raw.txt" >"$work/last.txt"
  return $rc
}
# kubeget reads the API server as its admin.
kubeget() { curl -fsS --cacert "$KUBE_CA_FILE" --cert "$KUBE_ADMIN_CERT" --key "$KUBE_ADMIN_KEY" "$KUBE_ENDPOINT$1"; }
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
echo "EKS $EKS_ENDPOINT  EC2 $EC2_ENDPOINT  STS $STS_ENDPOINT  Auto Scaling $AUTOSCALING_ENDPOINT  GKE $GKE_ENDPOINT  Compute $COMPUTE_ENDPOINT  control $CONTROL_ENDPOINT"
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

say "9. A GPU pool as Karpenter declares it (acme's batch jobs on spot L40S): a bad NodePool caught at plan, with no cluster at all"
cp -r "$root/examples/karpenter" "$kp"
cat >"$kp/cloudsim.auto.tfvars" <<VARS
eks_endpoint = "$EKS_ENDPOINT"
sts_endpoint = "$STS_ENDPOINT"
VARS
cat >"$kp/bad_override.tf" <<'HCL'
resource "gpufleet_karpenter_node_pool" "acme_embed" {
  disruption {
    consolidate_after = "10 minutes" # Karpenter takes Go durations: 10m
  }
}
HCL
before=$(ctl "$CONTROL_ENDPOINT/requests" | grep -c '"operation"' || true)
rc=0; tfk plan -input=false || rc=$?
[ "$rc" = 1 ] || fail "a NodePool that Karpenter's CRD refuses did not fail the plan (exit $rc)"
awk '/^Error/ {n++} n == 1' "$work/last.txt" | head -8
shows 'disruption\.consolidate_after' "the error does not point at disruption.consolidate_after"
shows 'spec\.disruption\.consolidateAfter' "the error does not name the NodePool field the CRD refuses"
[ "$(ctl "$CONTROL_ENDPOINT/requests" | grep -c '"operation"' || true)" = "$before" ] || fail "the plan called a cloud API"
echo "no API call, and no Kubernetes API server is running yet: the NodePools were validated in process against Karpenter 1.15's CRDs"
rm "$kp/bad_override.tf"

say "10. A real CRD-serving API server (etcd + apiextensions-apiserver, Karpenter's CRDs) plays EKS cluster ml; terraform apply"
"$bin/kubeapi" -etcd "$bin/etcd" -apiserver "$bin/apiextensions-apiserver" -cluster ml -env-file "$work/kube.env" >"$work/kubeapi.log" 2>&1 &
kube_pid=$!
for _ in $(seq 300); do [ -s "$work/kube.env" ] && break; kill -0 "$kube_pid" 2>/dev/null || break; sleep 0.1; done
[ -s "$work/kube.env" ] || fail "the API server did not start: $(tail -20 "$work/kubeapi.log")"
# shellcheck disable=SC1091
source "$work/kube.env"
ca_json=$(awk '{printf "%s\\n", $0}' "$KUBE_CA_FILE")
ctl -X POST "$CONTROL_ENDPOINT/eks/cluster-kubernetes" \
  -d "{\"region\":\"us-east-1\",\"cluster\":\"ml\",\"endpoint\":\"$KUBE_ENDPOINT\",\"ca_pem\":\"$ca_json\"}" >/dev/null ||
  fail "cloudsim did not take the API server's endpoint"
echo "API server $KUBE_ENDPOINT; gpufleet reaches it through EKS DescribeCluster and a token made from the AWS credentials, checked by STS"
tfk apply -input=false -auto-approve || fail "the Karpenter apply failed"
shows 'Apply complete! Resources: 1 added, 0 changed, 0 destroyed' "the apply did not create the Karpenter pool"
tfk output node_pools && show 'acme-embed' 5
kubeget /apis/karpenter.sh/v1/nodepools >"$work/nodepools.json" || fail "cannot list the NodePools"
grep -q '"name": *"acme-embed-od"' "$work/nodepools.json" && grep -q '"name": *"acme-embed-spot"' "$work/nodepools.json" ||
  fail "the API server does not hold acme's NodePools"
kubeget /apis/karpenter.sh/v1alpha1/nodeoverlays/acme-embed | grep -q '"nvidia.com/gpu": *"2"' ||
  fail "the NodeOverlay does not advertise two nvidia.com/gpu per node"
echo "in the cluster: EC2NodeClass acme-embed, NodePools acme-embed-od and acme-embed-spot, NodeOverlay acme-embed (2 nvidia.com/gpu per L40S)"
rc=0; tfk plan -input=false -detailed-exitcode || rc=$?
[ "$rc" = 0 ] || fail "the plan after the Karpenter apply is not empty (exit $rc)"
tfk destroy -input=false -auto-approve || fail "the Karpenter destroy failed"
shows 'Destroy complete! Resources: 1 destroyed' "the destroy did not remove the Karpenter pool"
kubeget /apis/karpenter.sh/v1/nodepools | grep -q 'acme-embed' && fail "NodePools left behind in the API server"
echo "terraform destroy removed every object; the API server is stopped"
stop_kubeapi

say "Summary: pools, clients, GPUs now and monthly cost (list prices less the agency's 10 % discount)"
terraform -chdir="$qs" output -raw summary || fail "no summary output"
echo
echo "policy findings on the plan (conftest, with the client registry): $findings_deny deny, $findings_warn warn"

say "11. terraform destroy: nothing is left behind"
tf destroy -input=false -auto-approve -var acme_spot_percentage=100 || fail "the destroy failed"
show 'Destroy complete' 1
shows 'Destroy complete! Resources: 3 destroyed' "the destroy did not remove the three pools"
state_is_empty || fail "left behind in cloudsim: $(ctl "$CONTROL_ENDPOINT/state")"
echo "cloudsim holds no node group, launch template or GKE node pool"

say "12. globex's L4s as a GKE ComputeClass (reservation, on-demand, spot) beside its node pool: rendered, checked against the ComputeClass schema and judged at plan, with no cluster"
# examples/computeclass, next to the quickstart's copy (it reads the quickstart's policy data).
qs_pool="$qs" qs="$work/computeclass"
cp -r "$root/examples/computeclass" "$qs"
printf 'gke_endpoint = "%s"\n' "$GKE_ENDPOINT" >"$qs/cloudsim.auto.tfvars"
before=$(ctl "$CONTROL_ENDPOINT/requests" | grep -c '"operation"' || true)
tf plan -input=false || fail "the ComputeClass plan failed"
awk '/manifests *= <<-EOT/ {p = 1} p {print} p && /EOT$/ && !/<<-EOT/ {exit}' "$work/last.txt" | sed -n '1,72p'
show '"cloud.google.com/compute-class"|Plan:' 3
warnings
shows 'affinity: Specific' "the class has no Specific reservation rung"
shows 'whenUnsatisfiable: DoNotScaleUp' "the GPU class does not leave pods Pending when no rung is satisfied"
shows 'Plan: 1 to add, 0 to change, 0 to destroy' "the plan does not create the class"
shows 'Warning: Policy GF-COST-003' "the plan does not warn of the spot rung under a workload that is not interruptible (GF-COST-003)"
shows 'Resource labels not carried by a ComputeClass' "the plan does not say that the class cannot carry the billing labels"
echo "... and a taint value the ComputeClass schema refuses (two characters) fails the plan at the attribute:"
cat >"$qs/bad_override.tf" <<'HCL'
resource "gpufleet_gke_compute_class" "globex_serve" {
  taints = [{ key = "team", value = "ml", effect = "NO_SCHEDULE" }]
}
HCL
rc=0; tf plan -input=false || rc=$?
[ "$rc" = 1 ] || fail "a taint value the ComputeClass schema refuses did not fail the plan"
show 'Error|taints\[1\]|should match' 4
shows 'ComputeClass refused by its CRD' "the error does not say the CRD refuses the class"
[ "$(ctl "$CONTROL_ENDPOINT/requests" | grep -c '"operation"' || true)" = "$before" ] || fail "planning the ComputeClass called GKE"
echo "neither plan called GKE or a cluster"
rm "$qs/bad_override.tf"

say "13. The ComputeClass applied to a real API server that serves gpufleet's ComputeClass CRD (as GKE serves its own), through a kubernetes block; planned empty; destroyed"
"$bin/kubeapi" -etcd "$bin/etcd" -apiserver "$bin/apiextensions-apiserver" -env-file "$work/kube-cc.env" >"$work/kubeapi-cc.log" 2>&1 &
kube_pid=$!
for _ in $(seq 300); do [ -s "$work/kube-cc.env" ] && break; kill -0 "$kube_pid" 2>/dev/null || break; sleep 0.1; done
[ -s "$work/kube-cc.env" ] || fail "the API server did not start: $(tail -20 "$work/kubeapi-cc.log")"
# shellcheck disable=SC1091
source "$work/kube-cc.env"
curl -fsS --cacert "$KUBE_CA_FILE" --cert "$KUBE_ADMIN_CERT" --key "$KUBE_ADMIN_KEY" -H 'Content-Type: application/yaml' \
  --data-binary @"$root/internal/computeclass/crd/computeclasses.cloud.google.com.yaml" \
  "$KUBE_ENDPOINT/apis/apiextensions.k8s.io/v1/customresourcedefinitions" >/dev/null || fail "the API server did not take the ComputeClass CRD"
for _ in $(seq 100); do kubeget /apis/cloud.google.com/v1/computeclasses >/dev/null 2>&1 && break; sleep 0.1; done
cat >"$qs/kube.auto.tfvars" <<VARS
kube_host  = "$KUBE_ENDPOINT"
kube_files = { ca = "$KUBE_CA_FILE", cert = "$KUBE_ADMIN_CERT", key = "$KUBE_ADMIN_KEY" }
VARS
tf apply -input=false -auto-approve || fail "the ComputeClass apply failed"
shows 'Apply complete! Resources: 1 added, 0 changed, 0 destroyed' "the apply did not create the ComputeClass"
kubeget /apis/cloud.google.com/v1/computeclasses/globex-l4-serve >"$work/computeclass.json" || fail "the API server holds no ComputeClass globex-l4-serve"
grep -q '"gpufleet.io/owner"' "$work/computeclass.json" && grep -q '"affinity": *"Specific"' "$work/computeclass.json" ||
  fail "the ComputeClass in the API server is not gpufleet's, or has no Specific reservation rung"
echo "in the cluster: ComputeClass globex-l4-serve, labelled gpufleet.io/owner, with globex's reservation first"
rc=0; tf plan -input=false -detailed-exitcode || rc=$?
[ "$rc" = 0 ] || fail "the plan after the ComputeClass apply is not empty (exit $rc)"
tf destroy -input=false -auto-approve || fail "the ComputeClass destroy failed"
shows 'Destroy complete! Resources: 1 destroyed' "the destroy did not remove the ComputeClass"
kubeget /apis/cloud.google.com/v1/computeclasses | grep -q 'globex-l4-serve' && fail "the ComputeClass is left behind in the API server"
echo "terraform destroy removed it; the API server is stopped"
stop_kubeapi
qs="$qs_pool"

stop_cloudsim
say "Done in $((SECONDS - started)) s; cloudsim stopped."
