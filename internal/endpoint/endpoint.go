// Package endpoint answers questions about the endpoints gpufleet is configured with, for the
// packages that connect to them (conns, metrics, karpenter) and the provider's plan-time checks.
package endpoint

import (
	"net"
	"net/url"
	"strings"
)

// IsLoopback reports whether endpoint (host:port or a URL) points at this machine.
func IsLoopback(endpoint string) bool {
	host := endpoint
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		host = u.Host
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
