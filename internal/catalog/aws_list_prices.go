package catalog

import "fmt"

// AWS on-demand list prices per region.
//
// The catalog quotes one on-demand price per type for its family's base region; every other region
// was that price × a regional factor (prices.go), a few percent off for most regions and about
// 10 % low for g5, g6 and g6e in Tokyo. Where a published price per region is at hand, a row takes
// it instead: the Linux, shared-tenancy on-demand prices of the ec2instances.info data (compiled
// from the AWS Price List API), as packaged in the Go module github.com/cristim/ec2-instances-info
// at v0.0.0-20250528091325-32acf84f42eb (data/instances.json, 2025-05-28; `go mod download` of that
// version reads it).
//
// Only families whose base-region prices in the catalog are the data's are taken from it
// (TestAWSListPricesMatchTheBaseRegion): g4dn, g5, g6, g6e, gr6, p3 and p3dn. AWS cut the
// on-demand prices of p4d, p4de, p5 and p5en in June 2025, after the data, and the catalog has the
// new ones; p5e and p6-b200 are not in the data. Those keep the regional factor. The regions are the
// catalog's (family.regions): the data has no price for g5 in ap-southeast-1 or g6 in eu-west-1,
// which keep the factor too.

const (
	awsListSource = "AWS EC2 On-Demand list price (Linux, shared tenancy) from the ec2instances.info data (AWS Price List API; Go module github.com/cristim/ec2-instances-info v0.0.0-20250528091325-32acf84f42eb, data/instances.json)"
	awsListAsOf   = "2025-05-28"
)

// awsListPrices is instance type → region → on-demand USD per instance-hour, as the data gives it.
var awsListPrices = map[string]map[string]float64{
	"g4dn.xlarge":   {"us-east-1": 0.526, "us-east-2": 0.526, "us-west-2": 0.526, "eu-west-1": 0.587, "eu-central-1": 0.658, "eu-north-1": 0.558, "ap-northeast-1": 0.71, "ap-southeast-1": 0.736},
	"g4dn.2xlarge":  {"us-east-1": 0.752, "us-east-2": 0.752, "us-west-2": 0.752, "eu-west-1": 0.838, "eu-central-1": 0.94, "eu-north-1": 0.798, "ap-northeast-1": 1.015, "ap-southeast-1": 1.052},
	"g4dn.4xlarge":  {"us-east-1": 1.204, "us-east-2": 1.204, "us-west-2": 1.204, "eu-west-1": 1.342, "eu-central-1": 1.505, "eu-north-1": 1.277, "ap-northeast-1": 1.625, "ap-southeast-1": 1.685},
	"g4dn.8xlarge":  {"us-east-1": 2.176, "us-east-2": 2.176, "us-west-2": 2.176, "eu-west-1": 2.426, "eu-central-1": 2.72, "eu-north-1": 2.308, "ap-northeast-1": 2.938, "ap-southeast-1": 3.045},
	"g4dn.12xlarge": {"us-east-1": 3.912, "us-east-2": 3.912, "us-west-2": 3.912, "eu-west-1": 4.362, "eu-central-1": 4.89, "eu-north-1": 4.15, "ap-northeast-1": 5.281, "ap-southeast-1": 5.474},
	"g4dn.16xlarge": {"us-east-1": 4.352, "us-east-2": 4.352, "us-west-2": 4.352, "eu-west-1": 4.853, "eu-central-1": 5.44, "eu-north-1": 4.617, "ap-northeast-1": 5.875, "ap-southeast-1": 6.089},
	"g4dn.metal":    {"us-east-1": 7.824, "us-east-2": 7.824, "us-west-2": 7.824, "eu-west-1": 8.724, "eu-central-1": 9.78, "eu-north-1": 8.3, "ap-northeast-1": 10.562, "ap-southeast-1": 10.948},
	"g5.xlarge":     {"us-east-1": 1.006, "us-east-2": 1.006, "us-west-2": 1.006, "eu-west-1": 1.123, "eu-central-1": 1.258, "eu-north-1": 1.067, "ap-northeast-1": 1.459},
	"g5.2xlarge":    {"us-east-1": 1.212, "us-east-2": 1.212, "us-west-2": 1.212, "eu-west-1": 1.35296, "eu-central-1": 1.5156, "eu-north-1": 1.28549, "ap-northeast-1": 1.75776},
	"g5.4xlarge":    {"us-east-1": 1.624, "us-east-2": 1.624, "us-west-2": 1.624, "eu-west-1": 1.81287, "eu-central-1": 2.03081, "eu-north-1": 1.72247, "ap-northeast-1": 2.35528},
	"g5.8xlarge":    {"us-east-1": 2.448, "us-east-2": 2.448, "us-west-2": 2.448, "eu-west-1": 2.73271, "eu-central-1": 3.06122, "eu-north-1": 2.59644, "ap-northeast-1": 3.55033},
	"g5.16xlarge":   {"us-east-1": 4.096, "us-east-2": 4.096, "us-west-2": 4.096, "eu-west-1": 4.57237, "eu-central-1": 5.12204, "eu-north-1": 4.34437, "ap-northeast-1": 5.94042},
	"g5.12xlarge":   {"us-east-1": 5.672, "us-east-2": 5.672, "us-west-2": 5.672, "eu-west-1": 6.33167, "eu-central-1": 7.09282, "eu-north-1": 6.01593, "ap-northeast-1": 8.22609},
	"g5.24xlarge":   {"us-east-1": 8.144, "us-east-2": 8.144, "us-west-2": 8.144, "eu-west-1": 9.09117, "eu-central-1": 10.18405, "eu-north-1": 8.63782, "ap-northeast-1": 11.81123},
	"g5.48xlarge":   {"us-east-1": 16.288, "us-east-2": 16.288, "us-west-2": 16.288, "eu-west-1": 18.18233, "eu-central-1": 20.3681, "eu-north-1": 17.27564, "ap-northeast-1": 23.62246},
	"g6.xlarge":     {"us-east-1": 0.8048, "us-east-2": 0.8048, "us-west-2": 0.8048, "eu-central-1": 1.0064, "eu-north-1": 0.8536, "ap-northeast-1": 1.1672},
	"g6.2xlarge":    {"us-east-1": 0.9776, "us-east-2": 0.9776, "us-west-2": 0.9776, "eu-central-1": 1.22249, "eu-north-1": 1.03688, "ap-northeast-1": 1.41781},
	"g6.4xlarge":    {"us-east-1": 1.3232, "us-east-2": 1.3232, "us-west-2": 1.3232, "eu-central-1": 1.65466, "eu-north-1": 1.40343, "ap-northeast-1": 1.91903},
	"g6.8xlarge":    {"us-east-1": 2.0144, "us-east-2": 2.0144, "us-west-2": 2.0144, "eu-central-1": 2.519, "eu-north-1": 2.13655, "ap-northeast-1": 2.92148},
	"g6.16xlarge":   {"us-east-1": 3.3968, "us-east-2": 3.3968, "us-west-2": 3.3968, "eu-central-1": 4.24769, "eu-north-1": 3.60277, "ap-northeast-1": 4.92637},
	"g6.12xlarge":   {"us-east-1": 4.6016, "us-east-2": 4.6016, "us-west-2": 4.6016, "eu-central-1": 5.75429, "eu-north-1": 4.88062, "ap-northeast-1": 6.67369},
	"g6.24xlarge":   {"us-east-1": 6.6752, "us-east-2": 6.6752, "us-west-2": 6.6752, "eu-central-1": 8.34732, "eu-north-1": 7.07996, "ap-northeast-1": 9.68103},
	"g6.48xlarge":   {"us-east-1": 13.3504, "us-east-2": 13.3504, "us-west-2": 13.3504, "eu-central-1": 16.69464, "eu-north-1": 14.15992, "ap-northeast-1": 19.36206},
	"g6e.xlarge":    {"us-east-1": 1.861, "us-east-2": 1.861, "us-west-2": 1.861, "eu-central-1": 2.327, "eu-north-1": 1.974, "ap-northeast-1": 2.699},
	"g6e.2xlarge":   {"us-east-1": 2.24208, "us-east-2": 2.24208, "us-west-2": 2.24208, "eu-central-1": 2.8035, "eu-north-1": 2.37822, "ap-northeast-1": 3.25168},
	"g6e.4xlarge":   {"us-east-1": 3.00424, "us-east-2": 3.00424, "us-west-2": 3.00424, "eu-central-1": 3.75651, "eu-north-1": 3.18666, "ap-northeast-1": 4.35703},
	"g6e.8xlarge":   {"us-east-1": 4.52856, "us-east-2": 4.52856, "us-west-2": 4.52856, "eu-central-1": 5.66252, "eu-north-1": 4.80353, "ap-northeast-1": 6.56775},
	"g6e.16xlarge":  {"us-east-1": 7.57719, "us-east-2": 7.57719, "us-west-2": 7.57719, "eu-central-1": 9.47454, "eu-north-1": 8.03728, "ap-northeast-1": 10.98917},
	"g6e.12xlarge":  {"us-east-1": 10.49264, "us-east-2": 10.49264, "us-west-2": 10.49264, "eu-central-1": 13.12002, "eu-north-1": 11.12975, "ap-northeast-1": 15.21742},
	"g6e.24xlarge":  {"us-east-1": 15.06559, "us-east-2": 15.06559, "us-west-2": 15.06559, "eu-central-1": 18.83806, "eu-north-1": 15.98037, "ap-northeast-1": 21.84956},
	"g6e.48xlarge":  {"us-east-1": 30.13118, "us-east-2": 30.13118, "us-west-2": 30.13118, "eu-central-1": 37.67612, "eu-north-1": 31.96075, "ap-northeast-1": 43.69912},
	"gr6.4xlarge":   {"us-east-1": 1.5392, "us-east-2": 1.5392, "us-west-2": 1.5392, "eu-central-1": 1.9248, "eu-north-1": 1.6326, "ap-northeast-1": 2.2323},
	"gr6.8xlarge":   {"us-east-1": 2.4464, "us-east-2": 2.4464, "us-west-2": 2.4464, "eu-central-1": 3.05927, "eu-north-1": 2.59485, "ap-northeast-1": 3.54801},
	"p3.2xlarge":    {"us-east-1": 3.06, "us-east-2": 3.06, "us-west-2": 3.06, "eu-west-1": 3.305, "eu-central-1": 3.823, "ap-northeast-1": 4.194, "ap-southeast-1": 4.234},
	"p3.8xlarge":    {"us-east-1": 12.24, "us-east-2": 12.24, "us-west-2": 12.24, "eu-west-1": 13.22, "eu-central-1": 15.292, "ap-northeast-1": 16.776, "ap-southeast-1": 16.936},
	"p3.16xlarge":   {"us-east-1": 24.48, "us-east-2": 24.48, "us-west-2": 24.48, "eu-west-1": 26.44, "eu-central-1": 30.584, "ap-northeast-1": 33.552, "ap-southeast-1": 33.872},
	"p3dn.24xlarge": {"us-east-1": 31.212, "us-west-2": 31.212, "eu-west-1": 33.711, "ap-northeast-1": 42.783},
}

// awsListed is an instance type's published prices outside its base region, for priceRows.
func awsListed(instanceType string) map[string]listedPrice {
	out := map[string]listedPrice{}
	for region, usd := range awsListPrices[instanceType] {
		out[region] = listedPrice{usd: usd, source: fmt.Sprintf("%s, %s $%g/h", awsListSource, region, usd), asOf: awsListAsOf}
	}
	return out
}
