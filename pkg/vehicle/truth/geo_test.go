package truth

import (
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// destination is the point d metres from (lat, lon) at bearing theta
// (radians clockwise from north) along a great circle of the sphere of
// EarthRadiusM: the direct problem of spherical geodesy, worked out
// independently of the projection under test.
func destination(lat, lon, d, theta float64) (float64, float64) {
	const rad = math.Pi / 180
	p1, l1, delta := lat*rad, lon*rad, d/EarthRadiusM
	p2 := math.Asin(math.Sin(p1)*math.Cos(delta) + math.Cos(p1)*math.Sin(delta)*math.Cos(theta))
	l2 := l1 + math.Atan2(math.Sin(theta)*math.Sin(delta)*math.Cos(p1), math.Cos(delta)-math.Sin(p1)*math.Sin(p2))
	lon2 := math.Mod(l2/rad+540, 360) - 180
	return p2 / rad, lon2
}

// TestProjection: an azimuthal equidistant projection puts a point at its
// great-circle distance from the origin, in its bearing. Points at known
// distances and bearings from several origins (PX4 SIH's default, a
// northern one, the equator, the south, near the pole, across the
// antimeridian) must come out there.
func TestProjection(t *testing.T) {
	origins := []struct {
		name     string
		lat, lon float64
	}{
		{"SIH default", 45.467116, -73.757837}, {"Zurich", 47.397742, 8.545594}, {"equator", 0, 0},
		{"Sydney", -33.8568, 151.2153}, {"near the pole", 85, 10}, {"antimeridian", 10, 179.9995},
	}
	points := []struct {
		name       string
		d, bearing float64 // m, degrees
	}{
		{"100 m north", 100, 0}, {"100 m east", 100, 90}, {"100 m south", 100, 180}, {"100 m west", 100, 270},
		{"1 km at 30 degrees", 1000, 30}, {"10 km south-west", 10000, 225}, {"at the origin", 0, 0},
	}
	for _, o := range origins {
		for _, p := range points {
			t.Run(o.name+"/"+p.name, func(t *testing.T) {
				theta := p.bearing * math.Pi / 180
				lat, lon := destination(o.lat, o.lon, p.d, theta)
				got := Origin{Lat: o.lat, Lon: o.lon, Alt: 100}.ENU(lat, lon, 112.5)
				want := [3]float64{p.d * math.Sin(theta), p.d * math.Cos(theta), 12.5}
				for i := range got {
					if !near(got[i], want[i], 1e-6) {
						t.Fatalf("ENU %v, want %v", got, want)
					}
				}
			})
		}
	}
}

// TestProjectionOfSIHTruth: PX4's SIH writes its global ground truth from
// its local one as lat0 + x/R and lon0 + y/(R cos lat0) (degrees from
// radians). A point 100 m north is then 100 m north in the projection; a
// point 100 m east along the parallel lies, seen from the origin, a little
// north of east: by y^2 tan(lat0) / (2R), 0.78 mm at SIH's default
// latitude.
func TestProjectionOfSIHTruth(t *testing.T) {
	const lat0, lon0, deg = 45.467116, -73.757837, 180 / math.Pi
	o := Origin{Lat: lat0, Lon: lon0, Alt: 32.34}
	tests := []struct {
		name       string
		x, y       float64 // SIH's local north and east, m
		east, nrth float64
	}{
		{"100 m north", 100, 0, 0, 100},
		{"100 m east", 0, 100, 100, 100 * 100 * math.Tan(lat0/deg) / (2 * EarthRadiusM)},
		{"at the reference", 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lat := lat0 + tc.x/EarthRadiusM*deg
			lon := lon0 + tc.y/EarthRadiusM*deg/math.Cos(lat0/deg)
			got := o.ENU(lat, lon, 32.34)
			if !near(got[0], tc.east, 1e-6) || !near(got[1], tc.nrth, 1e-6) || got[2] != 0 {
				t.Errorf("ENU %v, want (%v, %v, 0)", got, tc.east, tc.nrth)
			}
		})
	}
}

// TestOriginHalves: a half the estimator has not declared gives NaN.
func TestOriginHalves(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		o      Origin
		xy, z  bool
		wantUp float64
	}{
		{"both", Origin{Lat: 1, Lon: 2, Alt: 10}, true, true, 5},
		{"horizontal only", Origin{Lat: 1, Lon: 2, Alt: nan}, true, false, nan},
		{"vertical only", Origin{Lat: nan, Lon: nan, Alt: 10}, false, true, 5},
		{"none", Origin{Lat: nan, Lon: nan, Alt: nan}, false, false, nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.o.ENU(1, 2, 15)
			if tc.o.HasXY() != tc.xy || tc.o.HasZ() != tc.z || math.IsNaN(got[0]) == tc.xy || math.IsNaN(got[1]) == tc.xy {
				t.Errorf("HasXY %v, HasZ %v, ENU %v", tc.o.HasXY(), tc.o.HasZ(), got)
			}
			if !(got[2] == tc.wantUp || math.IsNaN(got[2]) && math.IsNaN(tc.wantUp)) {
				t.Errorf("up %v, want %v", got[2], tc.wantUp)
			}
		})
	}
}

// TestOriginTracker: the origin goes out when the estimator first declares
// one and each time it declares another; undeclared halves are NaN.
func TestOriginTracker(t *testing.T) {
	d := defs(t, px4.Release115)
	nan := math.NaN()
	sample := func(us int, lat, lon, alt float64, xy, z bool) []byte {
		return px4Payload(t, d, px4.MsgVehicleLocalPosition, map[string]any{"timestamp": us + 100, "timestamp_sample": us,
			"ref_lat": lat, "ref_lon": lon, "ref_alt": alt, "xy_global": xy, "z_global": z})
	}
	steps := []struct {
		name string
		data []byte
		want *Origin
	}{
		{"nothing declared yet", sample(1000, nan, nan, nan, false, false), nil},
		{"the altitude first", sample(2000, nan, nan, 488.5, false, true), &Origin{StampNs: 2_000_000, Lat: nan, Lon: nan, Alt: 488.5}},
		{"the same again", sample(3000, nan, nan, 488.5, false, true), nil},
		{"then the horizontal origin", sample(4000, 47.5, 8.5, 488.5, true, true), &Origin{StampNs: 4_000_000, Lat: 47.5, Lon: 8.5, Alt: 488.5}},
		{"a flag clear hides its values", sample(5000, 47.5, 8.5, 488.5, false, true), &Origin{StampNs: 5_000_000, Lat: nan, Lon: nan, Alt: 488.5}},
		{"declared again", sample(5500, 47.5, 8.5, 488.5, true, true), &Origin{StampNs: 5_500_000, Lat: 47.5, Lon: 8.5, Alt: 488.5}},
		{"a new origin", sample(6000, 47.6, 8.5, 490, true, true), &Origin{StampNs: 6_000_000, Lat: 47.6, Lon: 8.5, Alt: 490}},
	}
	var tr OriginTracker
	for _, s := range steps {
		o, ok, err := tr.Step(localPosition(t, d, s.data))
		if err != nil || ok != (s.want != nil) || ok && (o.StampNs != s.want.StampNs || !o.Same(*s.want)) {
			t.Errorf("%s: %+v %v %v, want %+v", s.name, o, ok, err, s.want)
		}
	}
	for _, bad := range []struct {
		name string
		data []byte
	}{
		{"latitude beyond the pole", sample(7000, 91, 8.5, 490, true, true)},
		{"longitude not finite", sample(7000, 47, math.Inf(1), 490, true, true)},
		{"altitude not finite", sample(7000, 47, 8, math.Inf(-1), true, true)},
	} {
		if _, _, err := tr.Step(localPosition(t, d, bad.data)); err == nil {
			t.Errorf("%s: accepted", bad.name)
		}
	}
}

// localPosition decodes a vehicle_local_position payload for reading by
// field name.
func localPosition(t *testing.T, d *px4.Definitions, data []byte) px4.Fields {
	t.Helper()
	m, err := d.Decode(px4.MsgVehicleLocalPosition, data)
	if err != nil {
		t.Fatal(err)
	}
	return px4.FieldsOf(&m)
}
