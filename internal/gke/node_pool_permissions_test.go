package gke_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// permissionsGuide is the source of docs/guides/permissions.md.
const permissionsGuide = "../../templates/guides/permissions.md.tmpl"

var (
	customRolePermissions = regexp.MustCompile(`gcloud iam roles create gpufleetNodePools[^\n]*\n(?:[^\n]*\\\n)*?[^\n]*--permissions=([a-zA-Z.,]+)`)
	serviceAccountUser    = regexp.MustCompile(`gcloud iam service-accounts add-iam-policy-binding[^\n]*\\\n(?:[^\n]*\\\n)*?\s*--role=roles/iam\.serviceAccountUser`)
)

// guideRole is what the permissions guide grants gpufleet_gke_node_pool, read from the guide: the
// custom role's permissions, and iam.serviceAccounts.actAs when it grants
// roles/iam.serviceAccountUser on the nodes' service account.
func guideRole(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(permissionsGuide))
	if err != nil {
		t.Fatal(err)
	}
	m := customRolePermissions.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no `gcloud iam roles create gpufleetNodePools … --permissions=…`", permissionsGuide)
	}
	perms := strings.Split(string(m[1]), ",")
	if serviceAccountUser.Match(b) {
		perms = append(perms, "iam.serviceAccounts.actAs")
	}
	return perms
}

// reservedMix is a pool with an on-demand side on the test reservation and a spot side: every call
// the provider makes on GKE and Compute Engine.
func reservedMix(sim *cloudsim.Sim, desired int, extra string) string {
	return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(0, desired, 4)+
		"  node_locations = [\"europe-west4-a\"]\n  capacity {\n    spot_percentage = 50\n    on_demand_base  = 0\n"+
		"    reservation {\n      type = \"specific\"\n      name = \""+reservation+"\"\n    }\n  }\n"+extra)
}

// Issue #35 §3, audit N3: the custom role of the permissions guide, read from the guide, is all
// gpufleet_gke_node_pool needs: create, update (labels, sizes, the spot side's upgrade settings),
// import and destroy run against a cloudsim that refuses every call the role does not authorise,
// with the permissions GKE's "API permissions" table gives each method.
func TestAccGKENodePool_customRole(t *testing.T) {
	perms := guideRole(t)
	sim := startSim(t)
	sim.SetGCPPermissions(perms)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: reservedMix(sim, 2, "")},
			{
				Config:           reservedMix(sim, 4, "  labels = { team = \"ml\" }\n  upgrade_settings {\n    max_surge = 2\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			},
			{
				Config:                  reservedMix(sim, 4, "  labels = { team = \"ml\" }\n  upgrade_settings {\n    max_surge = 2\n  }\n"),
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           fmt.Sprintf("%s/%s/%s/infer", testProject, testLocation, testCluster),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
		},
	})
	for _, r := range sim.Requests() {
		if r.Error == "PERMISSION_DENIED" || r.Error == "forbidden" {
			t.Errorf("%s %s refused under the guide's role", r.Service, r.Operation)
		}
	}
}

// One permission fewer than the guide's role fails the apply with an error that names it, before
// the call it guards has any effect (the reads and the wait that GKE authorises apart,
// compute.instanceGroupManagers.get and container.operations.get, are the tests below).
func TestAccGKENodePool_customRoleMissingPermission(t *testing.T) {
	for _, missing := range []string{"container.clusters.get", "container.clusters.update", "compute.reservations.get", "iam.serviceAccounts.actAs"} {
		t.Run(missing, func(t *testing.T) {
			sim := startSim(t)
			sim.SetGCPPermissions(roleWithout(t, missing))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkNothingLeft(t, sim),
				Steps: []resource.TestStep{{
					Config:      reservedMix(sim, 2, ""),
					ExpectError: acctest.ExpectErrorParts(missing),
				}},
			})
			if names := gpuPoolNames(t, sim); len(names) > 0 {
				t.Fatalf("node pools %v made without %s", names, missing)
			}
		})
	}
}

// roleWithout is the guide's role less one permission.
func roleWithout(t *testing.T, missing string) []string {
	return slices.DeleteFunc(guideRole(t), func(p string) bool { return p == missing })
}

// afterRoleFixed is the step that, once check passes on what the apply with a permission missing
// did, grants the guide's whole role again and plans the same pool: no change, and the node pools
// that run are the ones that apply created.
func afterRoleFixed(t *testing.T, sim *cloudsim.Sim, check func() error) resource.TestStep {
	var odID, spotID string
	return resource.TestStep{
		PreConfig: func() {
			if err := check(); err != nil {
				t.Fatal(err)
			}
			odID, spotID = creationID(sim, "infer-od"), creationID(sim, "infer-spot")
			if odID == "" || spotID == "" {
				t.Fatalf("node pools %v after the create", gpuPoolNames(t, sim))
			}
			sim.SetGCPPermissions(guideRole(t))
		},
		Config:           reservedMix(sim, 2, ""),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)}},
		Check: func(*terraform.State) error {
			if creationID(sim, "infer-od") != odID || creationID(sim, "infer-spot") != spotID {
				return errors.New("the node pools were replaced")
			}
			return nil
		},
	}
}

// A role without compute.instanceGroupManagers.get: GKE creates the node pools, healthy, and the
// read back of their sizes is refused. The create warns naming the permission instead of failing
// (a failed create is tainted, and the apply after the role is fixed deleted the running node
// pools and created them again); the next refresh fails naming it until the role has it, and then
// reads the node pools as they are, with nothing to replace.
func TestAccGKENodePool_customRoleMissingReadPermission(t *testing.T) {
	const missing = "compute.instanceGroupManagers.get"
	sim := startSim(t)
	sim.SetGCPPermissions(roleWithout(t, missing))
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			// The apply warns; the refresh after it fails naming the permission.
			{Config: reservedMix(sim, 2, ""), ExpectError: acctest.ExpectErrorParts(missing)},
			afterRoleFixed(t, sim, func() error { return diags.ExpectWarning("reading GKE node pool", missing, "not tainted") }),
		},
	})
}

// A role without container.operations.get: GKE starts the creates and the provider cannot follow
// their operations. It waits for the node pools themselves instead (GetNodePool, which
// container.clusters.get authorises) and warns naming the permission: the pool is not tainted,
// so the apply after the role is fixed replaces nothing.
func TestAccGKENodePool_customRoleMissingOperationsPermission(t *testing.T) {
	const missing = "container.operations.get"
	// Node pools take a while to provision, as on GKE: they are not running yet when the first
	// poll of their operation is refused.
	sim, err := cloudsim.Start(cloudsim.Options{Seed: testSeed(), TransitionDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	sim.SetGCPPermissions(roleWithout(t, missing))
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: reservedMix(sim, 2, "")},
			afterRoleFixed(t, sim, func() error { return diags.ExpectWarning(missing) }),
		},
	})
}
