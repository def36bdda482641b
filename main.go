// Command terraform-provider-gpufleet serves the gpufleet Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/provider"
)

// version is set by goreleaser at release time.
var version = "dev"

//go:generate go tool tfplugindocs generate --provider-name gpufleet

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietSDKTraceLogs()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/gpufleet/gpufleet",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}

// quietSDKTraceLogs turns off the framework's and protocol SDK's per-RPC TRACE logs unless the user
// asked terraform for logs. Terraform discards them when TF_LOG is unset, but the provider still
// formats them: over half the time of a plan with hundreds of pools (make bench).
func quietSDKTraceLogs() {
	for _, v := range []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"} {
		if os.Getenv(v) != "" {
			return
		}
	}
	for _, v := range []string{"TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"} {
		_ = os.Setenv(v, "off")
	}
}
