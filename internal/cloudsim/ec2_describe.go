package cloudsim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The read-only EC2 views of the seed: DescribeCapacityReservations,
// DescribeInstanceTypeOfferings and DescribeSubnets (EC2 API Reference for each action).

// EC2 API Reference: DescribeCapacityReservations — by ids (InvalidCapacityReservationId.NotFound
// for an unknown one) and filters instance-type, availability-zone, state, reservation-type,
// instance-platform, tenancy, owner-id, tag:<key>.
func (s *Sim) ec2DescribeCapacityReservations(c *call) ([]byte, *apiError) {
	rs := s.w.Seed.awsRegion(c.region)
	var selected []*CapacityReservationSeed
	ids := treeStrings(c.form, "CapacityReservationId")
	for _, id := range ids {
		if !strings.HasPrefix(id, "cr-") {
			return nil, ec2Err(400, "InvalidCapacityReservationId.Malformed", "The capacity reservation ID '%s' is malformed.", id)
		}
		cr := rs.capacityReservation(id)
		if cr == nil {
			return nil, ec2Err(400, "InvalidCapacityReservationId.NotFound", "The capacity reservation ID '%s' does not exist.", id)
		}
		selected = append(selected, cr)
	}
	if len(ids) == 0 {
		for i := range rs.CapacityReservations {
			selected = append(selected, &rs.CapacityReservations[i])
		}
	}
	filters := parseFilters(c.form)
	var matched []*CapacityReservationSeed
	for _, cr := range selected {
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) { return crFilterValues(cr, name, c.now) })
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, cr)
		}
	}
	start, end, next, aerr := ec2Page(c.form, len(matched), 1, 1000)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeCapacityReservations", func(b *xmlBuilder) {
		b.open("capacityReservationSet")
		for _, cr := range matched[start:end] {
			writeCapacityReservation(b, c.region, cr, crStateAt(cr, c.now), max(s.w.reservationFree(cr, ""), 0))
		}
		b.close("capacityReservationSet")
		b.leafIf("nextToken", next)
	}), nil
}

func crType(cr *CapacityReservationSeed) string { return firstNonEmpty(cr.ReservationType, "default") }

func crPlatform(cr *CapacityReservationSeed) string {
	return firstNonEmpty(cr.InstancePlatform, "Linux/UNIX")
}

func crFilterValues(cr *CapacityReservationSeed, name string, now time.Time) ([]string, bool) {
	switch {
	case name == "instance-type":
		return []string{cr.InstanceType}, true
	case name == "availability-zone":
		return []string{cr.AvailabilityZone}, true
	case name == "state":
		return []string{crStateAt(cr, now)}, true
	case name == "reservation-type":
		return []string{crType(cr)}, true
	case name == "instance-platform":
		return []string{crPlatform(cr)}, true
	case name == "tenancy":
		return []string{crTenancy(cr)}, true
	case name == "owner-id":
		return []string{AccountID}, true
	case name == "instance-match-criteria":
		return []string{firstNonEmpty(cr.InstanceMatchCriteria, "open")}, true
	case name == "tag-key":
		return sortedKeys(cr.Tags), true
	case strings.HasPrefix(name, "tag:"):
		if v, ok := cr.Tags[strings.TrimPrefix(name, "tag:")]; ok {
			return []string{v}, true
		}
		return nil, true
	}
	return nil, false
}

// writeCapacityReservation writes a reservation with its state and the instances it has available:
// the seed's, less what node groups on it hold.
func writeCapacityReservation(b *xmlBuilder, region string, cr *CapacityReservationSeed, state string, available int) {
	b.open("item")
	b.leaf("capacityReservationId", cr.ID)
	b.leaf("ownerId", AccountID)
	b.leaf("capacityReservationArn", fmt.Sprintf("arn:aws:ec2:%s:%s:capacity-reservation/%s", region, AccountID, cr.ID))
	b.leaf("availabilityZoneId", zoneID(cr.AvailabilityZone))
	b.leaf("instanceType", cr.InstanceType)
	b.leaf("instancePlatform", crPlatform(cr))
	b.leaf("availabilityZone", cr.AvailabilityZone)
	b.leaf("tenancy", crTenancy(cr))
	b.leaf("totalInstanceCount", strconv.Itoa(cr.TotalInstanceCount))
	b.leaf("availableInstanceCount", strconv.Itoa(available))
	b.leaf("ebsOptimized", "true")
	b.leaf("ephemeralStorage", "false")
	b.leaf("state", state)
	if cr.StartDate != nil {
		b.leaf("startDate", ec2Time(*cr.StartDate))
	}
	if cr.EndDate != nil {
		b.leaf("endDate", ec2Time(*cr.EndDate))
		b.leaf("endDateType", "limited")
	} else {
		b.leaf("endDateType", "unlimited")
	}
	b.leaf("instanceMatchCriteria", firstNonEmpty(cr.InstanceMatchCriteria, "open"))
	b.leaf("createDate", ec2Time(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)))
	b.leaf("reservationType", crType(cr))
	b.tagSet(cr.Tags)
	b.close("item")
}

// zoneID derives a zone id such as use1-az1 from a zone name such as us-east-1a.
func zoneID(zone string) string {
	if len(zone) < 2 {
		return zone
	}
	region, letter := zone[:len(zone)-1], zone[len(zone)-1]
	parts := strings.Split(region, "-")
	short := region
	if len(parts) == 3 && parts[1] != "" {
		short = parts[0] + parts[1][:1] + parts[2]
	}
	return fmt.Sprintf("%s-az%d", short, int(letter-'a')+1)
}

// EC2 API Reference: DescribeInstanceTypeOfferings — LocationType region (default),
// availability-zone or availability-zone-id; filters instance-type and location, both with
// wildcards.
func (s *Sim) ec2DescribeInstanceTypeOfferings(c *call) ([]byte, *apiError) {
	lt := firstNonEmpty(treeString(c.form, "LocationType"), "region")
	if lt != "region" && lt != "availability-zone" && lt != "availability-zone-id" {
		return nil, ec2Invalid("The value '%s' is not valid for LocationType. Valid values: region, availability-zone, availability-zone-id.", lt)
	}
	offerings := s.offerings(c.region, lt)
	filters := parseFilters(c.form)
	var matched [][2]string
	for _, o := range offerings {
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) {
			switch name {
			case "instance-type":
				return []string{o[0]}, true
			case "location":
				return []string{o[1]}, true
			}
			return nil, false
		})
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, o)
		}
	}
	start, end, next, aerr := ec2Page(c.form, len(matched), 5, 1000)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeInstanceTypeOfferings", func(b *xmlBuilder) {
		b.open("instanceTypeOfferingSet")
		for _, o := range matched[start:end] {
			b.open("item")
			b.leaf("instanceType", o[0])
			b.leaf("locationType", lt)
			b.leaf("location", o[1])
			b.close("item")
		}
		b.close("instanceTypeOfferingSet")
		b.leafIf("nextToken", next)
	}), nil
}

// offerings lists (instance type, location) pairs for a location type, sorted.
func (s *Sim) offerings(region, locationType string) [][2]string {
	rs := s.w.Seed.awsRegion(region)
	set := map[[2]string]bool{}
	for _, zone := range rs.zones() {
		for _, t := range rs.InstanceTypeOfferings[zone] {
			switch locationType {
			case "region":
				set[[2]string{t, region}] = true
			case "availability-zone":
				set[[2]string{t, zone}] = true
			default:
				set[[2]string{t, zoneID(zone)}] = true
			}
		}
	}
	out := make([][2]string, 0, len(set))
	for o := range set {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][1] != out[j][1] {
			return out[i][1] < out[j][1]
		}
		return out[i][0] < out[j][0]
	})
	return out
}

// EC2 API Reference: DescribeSubnets — by ids (InvalidSubnetID.NotFound for an unknown one) and
// filters vpc-id, availability-zone, availability-zone-id, subnet-id, state, tag:<key>, tag-key.
func (s *Sim) ec2DescribeSubnets(c *call) ([]byte, *apiError) {
	rs := s.w.Seed.awsRegion(c.region)
	var selected []*SubnetSeed
	ids := treeStrings(c.form, "SubnetId")
	for _, id := range ids {
		sn := rs.subnet(id)
		if sn == nil {
			return nil, ec2Err(400, "InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", id)
		}
		selected = append(selected, sn)
	}
	if len(ids) == 0 {
		for i := range rs.Subnets {
			selected = append(selected, &rs.Subnets[i])
		}
	}
	filters := parseFilters(c.form)
	var matched []*SubnetSeed
	for _, sn := range selected {
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) { return subnetFilterValues(sn, name) })
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, sn)
		}
	}
	start, end, next, aerr := ec2Page(c.form, len(matched), 5, 1000)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeSubnets", func(b *xmlBuilder) {
		b.open("subnetSet")
		for _, sn := range matched[start:end] {
			writeSubnet(b, c.region, sn)
		}
		b.close("subnetSet")
		b.leafIf("nextToken", next)
	}), nil
}

func subnetFilterValues(sn *SubnetSeed, name string) ([]string, bool) {
	switch {
	case name == "vpc-id":
		return []string{sn.VpcID}, true
	case name == "availability-zone":
		return []string{sn.AvailabilityZone}, true
	case name == "availability-zone-id":
		return []string{zoneID(sn.AvailabilityZone)}, true
	case name == "subnet-id":
		return []string{sn.ID}, true
	case name == "state":
		return []string{"available"}, true
	case name == "tag-key":
		return sortedKeys(sn.Tags), true
	case strings.HasPrefix(name, "tag:"):
		if v, ok := sn.Tags[strings.TrimPrefix(name, "tag:")]; ok {
			return []string{v}, true
		}
		return nil, true
	}
	return nil, false
}

func writeSubnet(b *xmlBuilder, region string, sn *SubnetSeed) {
	b.open("item")
	b.leaf("subnetId", sn.ID)
	b.leaf("subnetArn", fmt.Sprintf("arn:aws:ec2:%s:%s:subnet/%s", region, AccountID, sn.ID))
	b.leaf("state", "available")
	b.leaf("ownerId", AccountID)
	b.leaf("vpcId", sn.VpcID)
	b.leaf("cidrBlock", firstNonEmpty(sn.CIDRBlock, "10.0.0.0/24"))
	ips := sn.AvailableIPAddressCount
	if ips == 0 {
		ips = 250
	}
	b.leaf("availableIpAddressCount", strconv.Itoa(ips))
	b.leaf("availabilityZone", sn.AvailabilityZone)
	b.leaf("availabilityZoneId", zoneID(sn.AvailabilityZone))
	b.leaf("defaultForAz", "false")
	b.leaf("mapPublicIpOnLaunch", "false")
	b.tagSet(sn.Tags)
	b.close("item")
}
