package gke

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// Audit N11: the own-default-tags label value is a Kubernetes label value (begins and ends with a
// letter or digit, at most 63 characters) whatever tag keys it records, and reads back as them.
func TestOwnDefaultsLabel_isKubernetesLabelValue(t *testing.T) {
	valid := regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	long := strings.Repeat("k", 30)
	for _, keys := range [][]string{
		{"team-"}, {"cost_"}, {"a", "team-"}, {"team-", "zone"}, {"b_", "c-"},
		{long + "a", long + "-"}, {long + "-", long + "_", "x"}, {"managed-by"},
	} {
		v := ownDefaultsLabel(keys)
		if len(v) > maxLabelValue || !valid.MatchString(v) {
			t.Errorf("keys %q: label value %q is not a Kubernetes label value", keys, v)
		}
		np := &containerpb.NodePool{Config: &containerpb.NodeConfig{Labels: map[string]string{labelOwnDefaults: v}}}
		for _, k := range ownDefaultsOf(np) {
			if !slices.Contains(keys, k) {
				t.Errorf("keys %q: label value %q reads back key %q", keys, v, k)
			}
		}
	}
}
