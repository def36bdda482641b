terraform {
  required_version = ">= 1.8"
  required_providers {
    gpufleet = {
      source = "gpufleet/gpufleet"
    }
  }
}
