package pool

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// NewOwnerID is a pool's owner id: 64 random bits in hex. Each pool resource makes one when it
// creates the pool, keeps it in state (owner_id) and writes it on the cloud objects it creates, so
// that two pools that declare the same cluster and name (two states, two workspaces,
// create_before_destroy) never take each other's objects, which have the same names. Lowercase hex
// is a valid AWS tag value and a valid GCP label value.
func NewOwnerID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generating the pool's owner id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
