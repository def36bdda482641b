package recommend

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Where the pool will really run (issue #40, item 6). A gpufleet_eks_node_pool is created in the
// provider's AWS region unless its own `region` names another, and it needs an EKS cluster there:
// an answer in the cheapest of the regions asked may name a region where the team has no cluster,
// priced at that region's rates. So when the provider's region is known (Request.AWSRegion), the
// AWS answer is the cheapest pool in that region, priced at its rates. Only when that region has
// none (it is not among the regions asked, the client's residency excludes it, or nothing the
// bundle allows fits there) is the answer the cheapest elsewhere, and Result.Elsewhere says why and
// that the pool needs a cluster in the answer's region (the pool's `region` argument). GKE pools
// take their location from the answer (`location` = region), so a GCP answer stands as it is.
func recommendIn(ctx context.Context, cloud catalog.Cloud, regions []string, d demand, req Request, env Env) (*Result, error) {
	home := req.AWSRegion
	if cloud != catalog.AWS || home == "" {
		return recommendCloud(ctx, cloud, regions, d, req, env)
	}
	var why string
	switch {
	case slices.Contains(regions, home):
		res, err := recommendCloud(ctx, cloud, []string{home}, d, req, env)
		if err != nil || res.Best != nil {
			return res, err
		}
		why = fmt.Sprintf("no aws option fits the request in the provider's region %s", home)
	case !slices.Contains(catalog.Regions(catalog.AWS), home):
		why = fmt.Sprintf("the catalog prices no GPU instance in the provider's region %s", home)
	default:
		why = fmt.Sprintf("the provider's region %s is not among the regions asked and allowed (%s)", home, joinRegions(regions))
	}
	res, err := recommendCloud(ctx, cloud, regions, d, req, env)
	if err != nil || res.Best == nil {
		return res, err
	}
	res.Elsewhere = fmt.Sprintf("%s; the answer runs in %s, which needs an EKS cluster there (the pool's region = %q)", why, res.Best.Region, res.Best.Region)
	return res, nil
}

// joinRegions lists a few regions for a message.
func joinRegions(regions []string) string {
	const most = 4
	out := ""
	for i, r := range regions {
		if i == most {
			return out + fmt.Sprintf(", and %d more", len(regions)-most)
		}
		if i > 0 {
			out += ", "
		}
		out += r
	}
	return out
}
