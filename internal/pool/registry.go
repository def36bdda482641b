package pool

// Isolation levels a client can require (policy data clients.<id>.isolation).
const (
	IsolationDedicated = "dedicated"
	IsolationMIG       = "mig"
	IsolationShared    = "shared"
)

// Client is what the policy data says about one client.
type Client struct {
	CostCenter       string   `json:"cost_center,omitempty"`
	AllowedRegions   []string `json:"allowed_regions,omitempty"`
	Isolation        string   `json:"isolation,omitempty"`
	MonthlyBudgetUSD float64  `json:"monthly_budget_usd,omitempty"`
}

// Registry is the client registry from the policy data. A nil Registry means there is no policy
// data: derivations that need it (client taint, cost-centre tag) are skipped.
type Registry map[string]Client

// Lookup returns the client's entry.
func (r Registry) Lookup(id string) (Client, bool) {
	c, ok := r[id]
	return c, ok
}
