package kubetest

import "testing"

// Main runs a package's tests with run (acctest.Main, which prepares terraform's environment) and
// stops the shared API server afterwards; call it from TestMain with os.Exit.
func Main(m *testing.M, run func(*testing.M) int) int {
	defer StopShared()
	return run(m)
}
