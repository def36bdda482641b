// Command kubeapi runs the tests' CRD-serving Kubernetes API server (package kubetest) as a process,
// for `make demo`: etcd and apiextensions-apiserver on free loopback ports with Karpenter's CRDs,
// EKS tokens checked against the STS that signs them (cloudsim's). It writes
//
//	KUBE_ENDPOINT=https://127.0.0.1:40123
//	KUBE_CA_FILE=<dir>/ca.crt
//	KUBE_ADMIN_CERT=<dir>/admin.crt
//	KUBE_ADMIN_KEY=<dir>/admin.key
//
// to -env-file (and stdout), and runs until SIGINT or SIGTERM, then stops the server and etcd and
// removes what it wrote.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

func main() {
	etcd := flag.String("etcd", "bin/etcd", "the etcd binary")
	apiserver := flag.String("apiserver", "bin/apiextensions-apiserver", "the apiextensions-apiserver binary")
	cluster := flag.String("cluster", "ml", "the EKS cluster name tokens must be made for")
	envFile := flag.String("env-file", "", "where to write the endpoint and credential file names")
	flag.Parse()
	if err := run(*etcd, *apiserver, *cluster, *envFile); err != nil {
		fmt.Fprintln(os.Stderr, "kubeapi:", err)
		os.Exit(1)
	}
}

func run(etcd, apiserver, cluster, envFile string) error {
	dir, err := os.MkdirTemp("", "gpufleet-kubeapi-files-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := kubetest.Start(etcd, apiserver, kubetest.Options{Cluster: cluster})
	if err != nil {
		return err
	}
	defer srv.Stop()
	files := map[string][]byte{"ca.crt": srv.CAPEM, "admin.crt": srv.AdminCert, "admin.key": srv.AdminKey}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	env := fmt.Sprintf("KUBE_ENDPOINT=%s\nKUBE_CA_FILE=%s\nKUBE_ADMIN_CERT=%s\nKUBE_ADMIN_KEY=%s\n",
		srv.URL, filepath.Join(dir, "ca.crt"), filepath.Join(dir, "admin.crt"), filepath.Join(dir, "admin.key"))
	fmt.Print(env)
	if envFile != "" {
		tmp := envFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(env), 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, envFile); err != nil {
			return err
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	fmt.Fprintln(os.Stderr, "kubeapi: shutting down")
	return nil
}
