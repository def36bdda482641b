package eks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Ownership. gpufleet changes and deletes only node groups and launch templates it created and can
// prove it owns. Each carries the owner tag gpufleet:owner = "<cluster>/<pool>/<node group>/<owner
// id>": the owner id is random, made when the pool is created and kept in state (owner_id), so two
// pools that declare the same cluster and name (two states, create_before_destroy) never take each
// other's objects, which have the same names. A node group or template of a side's name that is not
// the side's is an error before anything is changed, and is never adopted, changed or deleted.
//
// Pools made before owner ids existed keep a null owner_id and their owner tag without it
// ("<cluster>/<pool>/<node group>", on launch templates only); their node groups, which carried no
// owner tag, count as theirs when state recorded their ARN (EKS gives every node group a new ARN) or
// when their launch template is the side's, and get the owner tag on the next apply.

// tagOwner is the owner tag; see above.
const tagOwner = "gpufleet:owner"

// poolOwner is what a pool's owner tags name: cluster, pool and owner id ("" for a pool made before
// owner ids). anyID is import: the owner id is not known yet, and any id of the cluster and pool is
// accepted (and then recorded).
type poolOwner struct {
	cluster, pool, id string
	anyID             bool
}

func (p poolOwner) side(nodegroup string) sideOwner {
	return sideOwner{poolOwner: p, nodegroup: nodegroup}
}

// sideOwner identifies one side of a pool: whose node group and launch template are whose.
type sideOwner struct {
	poolOwner
	nodegroup string
}

// legacyValue is the owner tag of a pool made before owner ids.
func (o sideOwner) legacyValue() string { return o.cluster + "/" + o.pool + "/" + o.nodegroup }

// value is the owner tag gpufleet writes on the side's node group and launch template.
func (o sideOwner) value() string {
	if o.id == "" {
		return o.legacyValue()
	}
	return o.legacyValue() + "/" + o.id
}

func (o sideOwner) templateName() string { return launchTemplateName(o.cluster, o.nodegroup) }

// ownerTagMatches reports whether an owner tag value names this side.
func (o sideOwner) ownerTagMatches(v string) bool {
	if o.anyID {
		return v == o.legacyValue() || strings.HasPrefix(v, o.legacyValue()+"/")
	}
	return v == o.value()
}

// ownerIDOf is the owner id an owner tag value of this side carries ("" for a legacy value).
func (o sideOwner) ownerIDOf(v string) string {
	id, _ := strings.CutPrefix(v, o.legacyValue()+"/")
	if id == v {
		return ""
	}
	return id
}

// owns reports whether lt is this side's template. Templates made before the owner tag existed
// count, for a pool made before owner ids, when they have the side's legacy name and the pool's
// gpufleet:pool tag: the tag tells apart the pairs whose legacy names collide (ml-a/b-od and
// ml/a-b-od), as their pools differ.
func (o sideOwner) owns(lt *ec2types.LaunchTemplate) bool {
	tags := tagMap(lt.Tags)
	if v, ok := tags[tagOwner]; ok {
		return o.ownerTagMatches(v)
	}
	return (o.id == "" || o.anyID) && aws.ToString(lt.LaunchTemplateName) == legacyLaunchTemplateName(o.cluster, o.nodegroup) &&
		tags[pool.TagKeysFor(catalog.AWS).Pool] == o.pool
}

// notOwnedError is a node group or launch template that exists but is not the side's: gpufleet
// leaves it alone.
type notOwnedError struct {
	kind, id, name string
	owner          *string // the object's gpufleet:owner tag, nil without one
	want           string
}

func (e *notOwnedError) Error() string {
	tag := "it has no " + tagOwner + " tag"
	if e.owner != nil {
		tag = fmt.Sprintf("its %s tag is %q", tagOwner, *e.owner)
	}
	return fmt.Sprintf("%s %s (%s) is not this pool's: %s, and gpufleet changes and deletes only %ss tagged %s = %q. "+
		"gpufleet has left it unchanged; delete or rename it if it is stale, or give the pool another name.", e.kind, e.name, e.id, tag, e.kind, tagOwner, e.want)
}

func isNotOwned(err error) bool {
	var e *notOwnedError
	return errors.As(err, &e)
}

func (o sideOwner) notOwned(kind, id, name string, tags map[string]string) *notOwnedError {
	e := &notOwnedError{kind: kind, id: id, name: name, want: o.value()}
	if v, ok := tags[tagOwner]; ok {
		e.owner = &v
	}
	return e
}

// checkOwned returns a *notOwnedError unless lt is the side's.
func (o sideOwner) checkOwned(lt *ec2types.LaunchTemplate) error {
	if o.owns(lt) {
		return nil
	}
	return o.notOwned("launch template", aws.ToString(lt.LaunchTemplateId), aws.ToString(lt.LaunchTemplateName), tagMap(lt.Tags))
}

// checkNodegroupOwned returns a *notOwnedError unless ng is the side's: by its owner tag; a node
// group without one (made before node groups carried it) when recordedARN, the ARN state holds for
// the side, is its ARN, or when its launch template is the side's.
func checkNodegroupOwned(ctx context.Context, conn *ec2.Client, o sideOwner, ng *types.Nodegroup, recordedARN string) error {
	arn := aws.ToString(ng.NodegroupArn)
	name := o.cluster + "/" + aws.ToString(ng.NodegroupName)
	if v, ok := ng.Tags[tagOwner]; ok {
		if o.ownerTagMatches(v) {
			return nil
		}
		return o.notOwned("EKS node group", arn, name, ng.Tags)
	}
	if recordedARN != "" && arn == recordedARN {
		return nil
	}
	if ng.LaunchTemplate != nil {
		lt, err := findLaunchTemplateByID(ctx, conn, aws.ToString(ng.LaunchTemplate.Id))
		switch {
		case err == nil && o.owns(lt):
			return nil
		case err != nil && !isNotFound(err):
			return fmt.Errorf("reading launch template %s of EKS node group %s: %w", aws.ToString(ng.LaunchTemplate.Id), name, err)
		}
	}
	return o.notOwned("EKS node group", arn, name, ng.Tags)
}

// findOwnedNodegroup returns the side's node group; an error wrapping errNotFound when there is
// none, a *notOwnedError when a node group of its name is not the side's.
func findOwnedNodegroup(ctx context.Context, c *clients, o sideOwner, recordedARN string) (*types.Nodegroup, error) {
	ng, err := findNodegroup(ctx, c.eks, o.cluster, o.nodegroup)
	if err != nil {
		return nil, err
	}
	if err := checkNodegroupOwned(ctx, c.ec2, o, ng, recordedARN); err != nil {
		return ng, err
	}
	return ng, nil
}
