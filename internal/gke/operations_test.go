package gke

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The per-node-pool lock: one holder per node pool, others' node pools free, and a waiter leaves
// when its context ends (a timeout, or Terraform cancelling the apply).
func TestLockPool(t *testing.T) {
	ctx := context.Background()
	unlock, err := lockPool(ctx, "projects/p/locations/l/clusters/c/nodePools/a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := lockPool(ctx, "projects/p/locations/l/clusters/c/nodePools/b")
	if err != nil {
		t.Fatalf("another node pool of the cluster is locked too: %v", err)
	}
	other()
	waiting, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := lockPool(waiting, "projects/p/locations/l/clusters/c/nodePools/a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for a held lock ended with %v, want the context's deadline", err)
	}
	unlock()
	again, err := lockPool(ctx, "projects/p/locations/l/clusters/c/nodePools/a")
	if err != nil {
		t.Fatalf("the lock was not released: %v", err)
	}
	again()
}

func TestVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		running, configured string
		want                bool
	}{
		{"1.31.5-gke.1023000", "1.31.5", true},
		{"1.31.5-gke.1023000", "1.31", true},
		{"1.31.5-gke.1023000", "1.31.5-gke.1023000", true},
		{"1.32.1-gke.100", "1.31", true}, // auto-upgraded past it
		{"1.31.4-gke.1183000", "1.31.5", false},
		{"1.30.12-gke.1086000", "1.31", false},
		{"1.31.5-gke.1000", "1.31.5-gke.1023000", false},
		{"1.31.5-gke.1023000", "1.9", true},
		{"weird", "weird", true},
		{"weird", "1.31", false},
	} {
		if got := versionAtLeast(tc.running, tc.configured); got != tc.want {
			t.Errorf("versionAtLeast(%q, %q) = %t, want %t", tc.running, tc.configured, got, tc.want)
		}
	}
}
