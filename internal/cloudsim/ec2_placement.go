package cloudsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// EC2 placement groups and Elastic Fabric Adapter interfaces, as multi-node GPU training uses them
// (issue #40, item 8). The rules, each from the page it is read in (2026-11-28):
//   - CreatePlacementGroup takes GroupName (up to 255 ASCII characters, unique in the Region for the
//     account), Strategy cluster | spread | partition and TagSpecification for resource type
//     placement-group; a second group of the same name is InvalidPlacementGroup.Duplicate
//     (EC2 API Reference: CreatePlacementGroup; error codes: InvalidPlacementGroup.Duplicate,
//     InvalidPlacementGroup.Unknown, InvalidPlacementGroup.InUse).
//   - DescribePlacementGroups by GroupName.N (an unknown name is InvalidPlacementGroup.Unknown) or
//     with filters group-name, strategy, state, tag:<key>, tag-key.
//   - DeletePlacementGroup by GroupName: "You must terminate all instances in the placement group
//     before you can delete the placement group" (EC2 API Reference: DeletePlacementGroup), else
//     InvalidPlacementGroup.InUse.
//   - A cluster placement group "is a logical grouping of instances within a single Availability
//     Zone" (EC2 User Guide, "Placement strategies"): an Auto Scaling group over subnets of several
//     zones cannot launch into it. cloudsim fails such a node group with AsgInstanceLaunchFailures.
//   - A launch template's Placement.GroupName that names no group: EC2 takes the template with a
//     warning (as for any data no instance launches from, validateLaunchTemplateData).
//   - Network interfaces: InterfaceType interface | efa | efa-only (EC2 API Reference:
//     LaunchTemplateInstanceNetworkInterfaceSpecificationRequest). "You can't use an EFA-only network
//     interface as the primary network interface" (network card 0, device 0), and an instance type
//     takes EFA only if it supports EFA, on network cards it has (EC2 User Guide, "Maximize network
//     bandwidth on accelerated computing instances with EFA" and "Elastic Fabric Adapter",
//     supported instance types). A template is not tied to an instance type, so EC2 takes it; the
//     node group's instances fail to launch (AsgInstanceLaunchFailures).

// PlacementGroup is a stored EC2 placement group (EC2 API Reference: PlacementGroup).
type PlacementGroup struct {
	GroupID   string            `json:"group_id"`
	GroupName string            `json:"group_name"`
	Strategy  string            `json:"strategy"`
	State     string            `json:"state"`
	Tags      map[string]string `json:"tags,omitempty"`
	Created   time.Time         `json:"created"`
}

// placementStrategies are CreatePlacementGroup's Strategy values.
var placementStrategies = []string{"cluster", "spread", "partition"}

// efaNetworkCards is, for the EC2 GPU instance types that support EFA, their network cards (one EFA
// interface each): EC2 DescribeInstanceTypes NetworkInfo.MaximumNetworkCards with
// EfaInfo.MaximumEfaInterfaces, as the EC2 User Guide pages above give them (p4d/p4de 4, p5/p5e 32,
// p5en 16, g6e.48xlarge 4) and internal/catalog/internode.go states them. A type missing here has no EFA.
var efaNetworkCards = map[string]int{
	"p4d.24xlarge": 4, "p4de.24xlarge": 4, "p5.48xlarge": 32, "p5e.48xlarge": 32, "p5en.48xlarge": 16, "p6-b200.48xlarge": 8,
	"g6e.8xlarge": 1, "g6e.12xlarge": 1, "g6e.16xlarge": 1, "g6e.24xlarge": 2, "g6e.48xlarge": 4,
	"g5.8xlarge": 1, "g5.12xlarge": 1, "g5.16xlarge": 1, "g5.24xlarge": 1, "g5.48xlarge": 1,
	"g6.8xlarge": 1, "g6.12xlarge": 1, "g6.16xlarge": 1, "g6.24xlarge": 1, "g6.48xlarge": 1, "gr6.8xlarge": 1,
	"g4dn.8xlarge": 1, "g4dn.12xlarge": 1, "g4dn.16xlarge": 1, "g4dn.metal": 1, "p3dn.24xlarge": 1,
}

func pgKey(region, name string) string { return region + "/" + name }

// PlacementGroups lists the placement groups of a region, for tests.
func (s *Sim) PlacementGroups(region string) []PlacementGroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PlacementGroup
	for _, k := range sortedKeys(s.w.PlacementGroups) {
		if strings.HasPrefix(k, region+"/") {
			out = append(out, *s.w.PlacementGroups[k])
		}
	}
	return out
}

// AddPlacementGroup puts a placement group in place as if someone else had created it, for tests.
func (s *Sim) AddPlacementGroup(region string, g PlacementGroup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.GroupID == "" {
		g.GroupID = "pg-" + randomHex(17)
	}
	if g.State == "" {
		g.State = "available"
	}
	s.w.PlacementGroups[pgKey(region, g.GroupName)] = &g
}

// EC2 API Reference: CreatePlacementGroup.
func (s *Sim) ec2CreatePlacementGroup(c *call) ([]byte, *apiError) {
	name := treeString(c.form, "GroupName")
	if name == "" {
		return nil, ec2Missing("GroupName")
	}
	if len(name) > 255 {
		return nil, ec2Invalid("Placement group name must be at most 255 characters")
	}
	strategy := treeString(c.form, "Strategy")
	if strategy != "" && !contains(placementStrategies, strategy) {
		return nil, ec2Invalid("Invalid value '%s' for strategy.", strategy)
	}
	if _, ok := s.w.PlacementGroups[pgKey(c.region, name)]; ok {
		return nil, ec2Err(400, "InvalidPlacementGroup.Duplicate", "The Placement Group '%s' already exists.", name)
	}
	tags, aerr := creationTags(c.form, "placement-group")
	if aerr != nil {
		return nil, aerr
	}
	g := &PlacementGroup{GroupID: "pg-" + randomHex(17), GroupName: name, Strategy: strategy, State: "available", Tags: tags,
		Created: c.now.UTC().Truncate(time.Millisecond)}
	s.w.PlacementGroups[pgKey(c.region, name)] = g
	return ec2Envelope("CreatePlacementGroup", func(b *xmlBuilder) { writePlacementGroup(b, "placementGroup", c.region, g) }), nil
}

// EC2 API Reference: DescribePlacementGroups.
func (s *Sim) ec2DescribePlacementGroups(c *call) ([]byte, *apiError) {
	var selected []*PlacementGroup
	names := treeStrings(c.form, "GroupName")
	for _, n := range names {
		g, ok := s.w.PlacementGroups[pgKey(c.region, n)]
		if !ok {
			return nil, ec2Err(400, "InvalidPlacementGroup.Unknown", "The Placement Group '%s' is unknown.", n)
		}
		selected = append(selected, g)
	}
	if len(names) == 0 {
		for _, k := range sortedKeys(s.w.PlacementGroups) {
			if strings.HasPrefix(k, c.region+"/") {
				selected = append(selected, s.w.PlacementGroups[k])
			}
		}
	}
	filters := parseFilters(c.form)
	var matched []*PlacementGroup
	for _, g := range selected {
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) { return placementGroupFilterValues(g, name) })
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, g)
		}
	}
	return ec2Envelope("DescribePlacementGroups", func(b *xmlBuilder) {
		b.open("placementGroupSet")
		for _, g := range matched {
			writePlacementGroup(b, "item", c.region, g)
		}
		b.close("placementGroupSet")
	}), nil
}

func placementGroupFilterValues(g *PlacementGroup, name string) ([]string, bool) {
	switch name {
	case "group-name":
		return []string{g.GroupName}, true
	case "group-id":
		return []string{g.GroupID}, true
	case "strategy":
		return []string{g.Strategy}, true
	case "state":
		return []string{g.State}, true
	}
	return tagFilterValues(g.Tags, name)
}

// EC2 API Reference: DeletePlacementGroup.
func (s *Sim) ec2DeletePlacementGroup(c *call) ([]byte, *apiError) {
	name := treeString(c.form, "GroupName")
	if name == "" {
		return nil, ec2Missing("GroupName")
	}
	if _, ok := s.w.PlacementGroups[pgKey(c.region, name)]; !ok {
		return nil, ec2Err(400, "InvalidPlacementGroup.Unknown", "The Placement Group '%s' is unknown.", name)
	}
	for _, key := range sortedKeys(s.w.Instances) {
		if i := s.w.Instances[key]; i.Region == c.region && s.w.instancePlacementGroup(i) == name {
			return nil, ec2Err(400, "InvalidPlacementGroup.InUse", "The placement group '%s' is in use and may not be deleted.", name)
		}
	}
	delete(s.w.PlacementGroups, pgKey(c.region, name))
	return ec2Envelope("DeletePlacementGroup", func(b *xmlBuilder) { b.leaf("return", "true") }), nil
}

// instancePlacementGroup is the placement group of the launch template version an instance ran from.
func (w *world) instancePlacementGroup(i *instRecord) string {
	r := w.LaunchTemplates[i.Region+"/"+i.Instance.LaunchTemplate]
	if r == nil {
		return ""
	}
	if v := r.LaunchTemplate.version(i.Instance.TemplateVersion); v != nil {
		return treeString(v.Data, "Placement.GroupName")
	}
	return ""
}

func writePlacementGroup(b *xmlBuilder, elem, region string, g *PlacementGroup) {
	b.open(elem)
	b.leaf("groupArn", fmt.Sprintf("arn:aws:ec2:%s:%s:placement-group/%s", region, AccountID, g.GroupName))
	b.leaf("groupId", g.GroupID)
	b.leaf("groupName", g.GroupName)
	b.leaf("state", g.State)
	b.leafIf("strategy", g.Strategy)
	b.tagSet(g.Tags)
	b.close(elem)
}

// launchTemplateNetworkProblems are the warnings EC2 gives a launch template whose network
// interfaces or placement no instance launches with, whatever its instance type: an unknown
// InterfaceType, an EFA-only primary interface, a placement group that does not exist.
func (s *Sim) launchTemplateNetworkProblems(region string, data map[string]any) (warnings []string, aerr *apiError) {
	for _, item := range treeList(data, "NetworkInterface") {
		ni, _ := item.(map[string]any)
		it := treeString(ni, "InterfaceType")
		if it != "" && it != "interface" && it != "efa" && it != "efa-only" && it != "trunk" {
			return nil, ec2Invalid("Invalid value '%s' for InterfaceType.", it)
		}
		if it == "efa-only" && treeString(ni, "NetworkCardIndex") == "" || it == "efa-only" && treeString(ni, "NetworkCardIndex") == "0" && treeString(ni, "DeviceIndex") == "0" {
			warnings = append(warnings, "InvalidParameterCombination: An EFA-only network interface cannot be the primary network interface (network card index 0, device index 0).")
		}
	}
	if g := treeString(data, "Placement.GroupName"); g != "" {
		if _, ok := s.w.PlacementGroups[pgKey(region, g)]; !ok {
			warnings = append(warnings, "InvalidPlacementGroup.Unknown: The Placement Group '"+g+"' is unknown.")
		}
	}
	return warnings, nil
}

// networkLaunchIssues are the health issues of a node group whose instances cannot launch with its
// launch template's network: EFA interfaces on an instance type without EFA or on network cards it
// does not have, or a cluster placement group over subnets of several zones. nil when they launch.
func (w *world) networkLaunchIssues(r *ngRecord) []HealthIssue {
	spec := r.Nodegroup.LaunchTemplate
	if spec == nil {
		return nil
	}
	lt := w.launchTemplate(r.Region, spec.ID, spec.Name)
	if lt == nil {
		return nil
	}
	v := lt.LaunchTemplate.version(spec.Version)
	if v == nil {
		return nil
	}
	fail := func(format string, args ...any) []HealthIssue {
		return issuesOrDefault([]HealthIssue{{Code: "AsgInstanceLaunchFailures", Message: "Could not launch On-Demand Instances. " + fmt.Sprintf(format, args...) + " Launching EC2 instance failed."}},
			HealthIssue{}, r.Nodegroup.Resources)
	}
	types := r.InstanceTypes
	if it := treeString(v.Data, "InstanceType"); it != "" {
		types = []string{it}
	}
	for _, item := range treeList(v.Data, "NetworkInterface") {
		ni, _ := item.(map[string]any)
		it := treeString(ni, "InterfaceType")
		if it != "efa" && it != "efa-only" {
			continue
		}
		card, _ := strconv.Atoi(treeString(ni, "NetworkCardIndex"))
		for _, t := range types {
			cards, ok := efaNetworkCards[t]
			switch {
			case !ok:
				return fail("InvalidParameterCombination - EFA interfaces are not supported on %s.", t)
			case card >= cards:
				return fail("InvalidParameterValue - Network card index %d is not valid for %s, which has %d network card(s).", card, t, cards)
			}
		}
	}
	if name := treeString(v.Data, "Placement.GroupName"); name != "" {
		if g := w.PlacementGroups[pgKey(r.Region, name)]; g != nil && g.Strategy == "cluster" && len(r.Zones) > 1 {
			return fail("InvalidParameterCombination - Cluster placement group %s is in one Availability Zone, and the group launches into %s.", name, strings.Join(r.Zones, ", "))
		}
	}
	return nil
}
