package ulog_test

import (
	"fmt"
	"log"
	"os"

	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
)

// Reading two fields of every sample of one topic, looking the fields up
// once per format.
func Example() {
	f, err := os.Open("testdata/px4_v1.11_excerpt.ulg")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := ulog.NewReader(f, ulog.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var format *ulog.Format
	var eph, epv ulog.FieldRef
	n := 0
	for m, err := range r.Messages() {
		if err != nil {
			log.Fatal(err)
		}
		d, ok := m.(*ulog.Data)
		if !ok || d.Name() != "vehicle_local_position" {
			continue
		}
		if d.Format() != format {
			format = d.Format()
			eph, _ = format.Field("eph")
			epv, _ = format.Field("epv")
		}
		if n == 0 {
			ts, _ := d.Timestamp()
			h, _ := d.FloatAt(eph)
			v, _ := d.FloatAt(epv)
			fmt.Printf("t=%d µs eph=%.3f m epv=%.3f m\n", ts, h, v)
		}
		n++
	}
	_, truncated := r.Truncated()
	fmt.Println(n, "samples, truncated:", truncated)
	// Output:
	// t=20321827 µs eph=0.345 m epv=0.591 m
	// 60 samples, truncated: false
}
