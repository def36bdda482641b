package gke

import (
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// A reservation change deletes and creates the on-demand node pool again only when the pool asks
// for another reservation than it consumes; a pool without a reservation block leaves whatever GKE
// reports for a node pool created without one (audit Part D Q3) alone, unless it is a specific
// reservation the pool no longer names.
func TestReservationReplaces(t *testing.T) {
	specific := &pool.Reservation{Type: pool.ReservationSpecific, Name: "l4"}
	anyRsv, none := &pool.Reservation{Type: pool.ReservationAny}, &pool.Reservation{Type: pool.ReservationNone}
	for _, tc := range []struct {
		name      string
		got, want *pool.Reservation
		replace   bool
	}{
		{"unset, GKE reports none", nil, nil, false},
		{"unset, GKE reports NO_RESERVATION", none, nil, false},
		{"unset, GKE reports ANY_RESERVATION", anyRsv, nil, false},
		{"specific removed", specific, nil, true},
		{"none written, none read", nil, none, false},
		{"specific added", none, specific, true},
		{"another specific", specific, &pool.Reservation{Type: pool.ReservationSpecific, Name: "l4-2"}, true},
		{"shared project named", specific, &pool.Reservation{Type: pool.ReservationSpecific, Name: "l4", Project: "p"}, true},
		{"any written, any read", anyRsv, &pool.Reservation{Type: pool.ReservationAny}, false},
		{"any to none", anyRsv, none, true},
	} {
		if got := reservationReplaces(tc.got, tc.want); got != tc.replace {
			t.Errorf("%s: reservationReplaces = %t, want %t", tc.name, got, tc.replace)
		}
	}
}
