package main

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// slotFlags is what the jar fetch slot flags gave: the slots in all and per namespace, or
// the error.
type slotFlags struct {
	Total, PerNamespace int
	Err                 string
}

// The jar fetch slots are the administrator's to size: 2 in all and 1 a namespace unless the
// flags say otherwise; a namespace never gets more than all, and none is no bound.
func TestJarFetchSlotFlags(t *testing.T) {
	cases := map[string]struct {
		args []string
		want slotFlags
	}{
		"the defaults":             {want: slotFlags{Total: 2, PerNamespace: 1}},
		"more slots, two a tenant": {args: []string{"--jar-fetch-slots=8", "--jar-fetch-slots-per-namespace=2"}, want: slotFlags{Total: 8, PerNamespace: 2}},
		"no slot at all":           {args: []string{"--jar-fetch-slots=0"}, want: slotFlags{Err: "--jar-fetch-slots: 0 is not between 1 and 64"}},
		"more than the temp dir holds": {
			args: []string{"--jar-fetch-slots=65"}, want: slotFlags{Err: "--jar-fetch-slots: 65 is not between 1 and 64"},
		},
		"a namespace holding more than all": {
			args: []string{"--jar-fetch-slots=2", "--jar-fetch-slots-per-namespace=3"},
			want: slotFlags{Err: "--jar-fetch-slots-per-namespace: 3 is not between 1 and --jar-fetch-slots (2)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fs := flag.NewFlagSet("flink-operator", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o := jarFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got := slotFlags{Total: o.fetchSlots, PerNamespace: o.fetchSlotsPerNS}
			if _, err := o.fetcher(); err != nil {
				got = slotFlags{Err: err.Error()}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("jar fetch slots (-want +got):\n%s", diff)
			}
		})
	}
}
