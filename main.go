// Command terraform-provider-gpufleet serves the gpufleet Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

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

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/gpufleet/gpufleet",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
