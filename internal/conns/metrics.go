package conns

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
)

// ErrNoMetrics is returned by MetricsClient when the provider block has no metrics block.
var ErrNoMetrics = errors.New(`the provider block has no metrics { url = "…" } block: gpufleet needs the Prometheus-compatible query API that scrapes dcgm-exporter`)

// MetricsClient returns a client of the metrics block's query endpoint. Amazon Managed Prometheus
// signs with the provider's AWS credential chain (the aws block), loaded on first use.
func (m *Meta) MetricsClient(ctx context.Context) (*metrics.Client, error) {
	if m.Metrics == nil {
		return nil, ErrNoMetrics
	}
	cfg := *m.Metrics
	if cfg.Kind == metrics.KindAMP {
		// Loaded now, so that missing credentials are a configuration error, not a failed query.
		if _, err := m.AWSConfig(ctx); err != nil {
			return nil, &metrics.ConfigError{Field: "kind", Err: fmt.Errorf(`kind "amp" signs queries with the provider's AWS credentials (aws block, AWS_REGION, the SDK's chain): %w`, err)}
		}
		cfg.AWS = m.AWSConfig
	}
	return metrics.New(ctx, cfg)
}
