package truth

import (
	"fmt"
	"math"
)

// EarthRadiusM is the radius of the sphere on which PX4 maps latitude and
// longitude to its local frames (its MapProjection), in metres.
const EarthRadiusM = 6371000.0

// Origin is where an estimator declares its local frame to lie on the
// Earth: latitude and longitude (degrees) of its horizontal origin and the
// altitude (m above mean sea level) of its vertical origin, from StampNs
// on. A half the estimator has not declared is NaN. It is the estimator's
// own statement of its frame, not an estimate of the vehicle's state, so
// the truth may be expressed in it without taking the estimator's word for
// where the vehicle is.
type Origin struct {
	StampNs  int64
	Lat, Lon float64
	Alt      float64
}

// HasXY reports whether the horizontal origin is declared.
func (o Origin) HasXY() bool { return finite(o.Lat) && finite(o.Lon) }

// HasZ reports whether the vertical origin is declared.
func (o Origin) HasZ() bool { return finite(o.Alt) }

// Same reports whether o and p declare the same frame (stamps aside).
func (o Origin) Same(p Origin) bool {
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	return same(o.Lat, p.Lat) && same(o.Lon, p.Lon) && same(o.Alt, p.Alt)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (o Origin) check() error {
	if o.StampNs < 0 {
		return sampleErr("estimator origin", "stamp", o.StampNs, "must be >= 0 ns")
	}
	return checkGeodetic("estimator origin", o.Lat, o.Lon, o.Alt, true)
}

// checkGeodetic validates a latitude, longitude and altitude; with
// partial, NaN stands for a half not given (latitude and longitude
// together).
func checkGeodetic(where string, lat, lon, alt float64, partial bool) error {
	xyAbsent := partial && math.IsNaN(lat) && math.IsNaN(lon)
	switch {
	case !xyAbsent && (!finite(lat) || math.Abs(lat) > 90):
		return sampleErr(where, "latitude", lat, "must be within [-90, 90] degrees")
	case !xyAbsent && (!finite(lon) || math.Abs(lon) > 180):
		return sampleErr(where, "longitude", lon, "must be within [-180, 180] degrees")
	case !(partial && math.IsNaN(alt)) && !finite(alt):
		return sampleErr(where, "altitude", alt, "not finite")
	}
	return nil
}

// ENU returns the point at latitude lat and longitude lon (degrees) and
// altitude alt (m above mean sea level) in o's local frame, ENU: east and
// north as PX4 maps them (an azimuthal equidistant projection on a sphere
// of EarthRadiusM centred on o: the point lies at its great-circle
// distance from o, in its direction), up as the height above o's
// altitude. Components of a half o does not declare are NaN.
func (o Origin) ENU(lat, lon, alt float64) [3]float64 {
	out := [3]float64{math.NaN(), math.NaN(), math.NaN()}
	if o.HasXY() {
		out[0], out[1] = project(o.Lat, o.Lon, lat, lon)
	}
	if o.HasZ() {
		out[2] = alt - o.Alt
	}
	return out
}

// project maps (lat, lon) to (east, north) metres from (lat0, lon0).
// The angle c between the two points seen from the Earth's centre is
// their distance on the sphere over its radius; the direction is that of
// the great circle from the origin, whose north and east parts are
// cos(lat0) sin(lat) - sin(lat0) cos(lat) cos(dlon) and
// cos(lat) sin(dlon), both of length sin(c).
func project(lat0, lon0, lat, lon float64) (east, north float64) {
	const rad = math.Pi / 180
	s0, c0 := math.Sincos(lat0 * rad)
	s1, c1 := math.Sincos(lat * rad)
	sdl, cdl := math.Sincos((lon - lon0) * rad)
	cosC := max(-1, min(1, s0*s1+c0*c1*cdl))
	c := math.Acos(cosC)
	k := 1.0 // the limit of c / sin(c) at the origin
	if c > 0 {
		k = c / math.Sin(c)
	}
	return k * c1 * sdl * EarthRadiusM, k * (c0*s1 - s0*c1*cdl) * EarthRadiusM
}

// String names the origin for people.
func (o Origin) String() string {
	xy, z := "undeclared", "undeclared"
	if o.HasXY() {
		xy = fmt.Sprintf("%.7f, %.7f", o.Lat, o.Lon)
	}
	if o.HasZ() {
		z = fmt.Sprintf("%.3f m", o.Alt)
	}
	return fmt.Sprintf("lat/lon %s, alt %s", xy, z)
}
