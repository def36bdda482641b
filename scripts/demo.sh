#!/usr/bin/env bash
# make demo: the gpufleet story, offline. cloudsim plays EKS, EC2, GKE and Compute on their real wire protocols;
# terraform runs the provider from bin/ through a dev_overrides CLI config (no registry, no init);
# conftest runs the same policy bundle on the plan JSON, as CI would.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-demo.XXXXXX")"
sim_pid=""
cleanup() {
  if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2>/dev/null; then
    kill -TERM "$sim_pid" && wait "$sim_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
tf() { terraform -chdir="$work/demo" "$@" -no-color 2>&1 | grep -v -E 'Provider development overrides|dev_overrides|gpufleet/gpufleet in |version and checksum|published releases|incompatible with published|^ *$|^╷|^╵|^│ *$' || true; }

cat > "$work/terraformrc" <<CFG
provider_installation {
  dev_overrides {
    "gpufleet/gpufleet" = "$bin"
  }
  direct {}
}
CFG
export TF_CLI_CONFIG_FILE="$work/terraformrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
export AWS_ACCESS_KEY_ID=AKIADEMO AWS_SECRET_ACCESS_KEY=demo AWS_EC2_METADATA_DISABLED=true

say "0. Start cloudsim (EKS REST-JSON, EC2 Query/XML, GKE gRPC, Compute REST on loopback)"
"$bin/cloudsim" -seed "$root/examples/cloudsim/seed.json" -state "$work/cloudsim-state.json" \
  -delay 500ms -env-file "$work/endpoints.env" >"$work/cloudsim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do [ -s "$work/endpoints.env" ] && break; sleep 0.1; done
# shellcheck disable=SC1091
source "$work/endpoints.env"
echo "EKS $EKS_ENDPOINT  EC2 $EC2_ENDPOINT  GKE $GKE_ENDPOINT  control $CONTROL_ENDPOINT"
cp -r "$root/examples/demo" "$work/demo"
vars=(-input=false -var "eks_endpoint=$EKS_ENDPOINT" -var "ec2_endpoint=$EC2_ENDPOINT"
  -var "gke_endpoint=$GKE_ENDPOINT" -var "compute_endpoint=$COMPUTE_ENDPOINT")

say "1. terraform plan: derived taints, labels, spot split and cost are known at plan time; policy runs"
tf plan "${vars[@]}" -out="$work/plan.out" | grep -E 'will be created|gpu_model|estimated_monthly|"nvidia.com/gpu"|gpufleet.io/client"|name +=|capacity_type|Warning|GF-|Plan:' | head -40

say "2. conftest on the plan JSON, exactly as CI runs it (with the client registry, then without)"
terraform -chdir="$work/demo" show -json "$work/plan.out" >"$work/plan.json"
conftest test --no-color --policy "$root/policies" --data "$root/examples/demo/policy-data.yaml" "$work/plan.json" | tee "$work/conftest.txt" || true
conftest test --no-color --policy "$root/policies" "$work/plan.json" || true

say "3. terraform apply (EKS node groups with launch templates, GKE node pools appear in cloudsim)"
tf apply "${vars[@]}" -auto-approve | grep -E 'Creation complete|Apply complete|Error' | head -20
tf output pools

say "4. A policy violation fails the plan at the attribute, before any cloud call"
tf plan "${vars[@]}" -var serve_sharing=true | grep -E 'Error|GF-|gpu.sharing|with ' | head -8

say "5. Bad input fails at plan time, naming the attribute"
sed 's/profile = "3g.40gb"/profile = "3g.20gb"/' "$root/examples/demo/main.tf" >"$work/demo/main.tf"
tf plan "${vars[@]}" | grep -E 'Error|gpu.mig.profile|offers' | head -4
cp "$root/examples/demo/main.tf" "$work/demo/main.tf"

say "6. 30 % throttling on EKS, EC2, GKE and Compute; the SDKs' retryers absorb it while the spot share moves to 100 %"
for svc in eks ec2 gke compute; do
  curl -fsS -X POST "$CONTROL_ENDPOINT/faults" -d "{\"service\":\"$svc\",\"kind\":\"throttle\",\"rate\":0.3}" >/dev/null
done
tf apply "${vars[@]}" -var train_spot_percentage=100 -auto-approve | grep -E 'Modifications complete|Apply complete|Error' | head -5
curl -fsS "$CONTROL_ENDPOINT/faults" | grep -o '"fired": *[0-9]*' | grep -o '[0-9]*$' | awk '{n += $1} END {print "throttled calls, retried by the SDK: " n}'
curl -fsS -X DELETE "$CONTROL_ENDPOINT/faults" >/dev/null

say "7. Someone scales a node group by hand: the next plan shows the drift"
curl -fsS -X POST "$CONTROL_ENDPOINT/oob/eks/scale-nodegroup" \
  -d '{"region":"us-east-1","cluster":"ml","nodegroup":"globex-serve-od","desired_size":5}' >/dev/null
tf plan "${vars[@]}" -var train_spot_percentage=100 | grep -E 'will be updated|desired_size|Plan:' | head -6

say "Summary: pools, clients, GPUs and monthly cost (estimates at list price less the 10 % discount)"
tf output -raw summary
echo
echo "policy findings on the plan (conftest, with the client registry): $(grep -c '^FAIL' "$work/conftest.txt" || true) deny, $(grep -c '^WARN' "$work/conftest.txt" || true) warn"

say "8. terraform destroy: nothing is left behind"
tf destroy "${vars[@]}" -var train_spot_percentage=100 -auto-approve | grep -E 'Destroy complete|Error' | head -3
state=$(curl -fsS "$CONTROL_ENDPOINT/state")
if grep -q '"nodegroups": *\[\]' <<<"$state" && grep -q '"launch_templates": *\[\]' <<<"$state" && grep -q '"node_pools": *\[\]' <<<"$state"; then
  echo "cloudsim holds no node group, launch template or GKE node pool"
else
  echo "left behind in cloudsim: $state" >&2; exit 1
fi
say "Done."
