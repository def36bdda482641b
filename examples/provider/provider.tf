terraform {
  required_providers {
    gpufleet = {
      source  = "gpufleet/gpufleet"
      version = "~> 0.1"
    }
  }
}

provider "gpufleet" {
  # Merged under every pool's tags, and carried to instances and volumes. GKE pools carry them as
  # resource labels, so keys and values that both clouds take: lower case, digits, - and _.
  default_tags = {
    managed-by = "terraform"
  }

  aws {
    region = "us-east-1"
    # Credentials come from the AWS SDK's standard chain; optionally assume a role.
    assume_role {
      role_arn = "arn:aws:iam::123456789012:role/gpufleet"
    }
  }

  gcp {
    project = "acme-ml"
  }

  # Negotiated rates for cost estimates and cost policy.
  pricing {
    discount_percent = 12
    overrides = {
      "p5.48xlarge" = { on_demand_hourly_usd = 48.0 }
    }
  }

  # The same policy bundle conftest runs in CI, at plan time.
  policy {
    enforcement = "deny"
    data_files  = ["${path.module}/policy-data.yaml"]
  }
}
