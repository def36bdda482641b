package conns

import (
	"context"
	"errors"

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
		cfg.AWS = m.AWSConfig
	}
	return metrics.New(ctx, cfg)
}
