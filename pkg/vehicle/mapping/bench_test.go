package mapping

import "testing"

func BenchmarkTrackerPX4Odometry(b *testing.B) {
	b.ReportAllocs()
	var tr Tracker
	o := px4Odom(0)
	for i := 0; i < b.N; i++ {
		o.TimestampSample = uint64(i) + 1
		if _, err := tr.PX4Odometry(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrackerOdometry(b *testing.B) {
	b.ReportAllocs()
	var tr Tracker
	o := navOdom(0)
	for i := 0; i < b.N; i++ {
		o.StampNs = int64(i) + 1
		if _, err := tr.Odometry(&o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssess(b *testing.B) {
	b.ReportAllocs()
	s, err := MapPX4Odometry(px4Odom(1), NoFlightStatus())
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := Assess(&s, thresholds); err != nil {
			b.Fatal(err)
		}
	}
}
