package dynamic

import "testing"

func BenchmarkDecodeOdometry(b *testing.B) {
	text, defs := loadSchema(b, "nav_msgs/Odometry", odomType)
	p, err := CompileSchema("nav_msgs/Odometry", text)
	if err != nil {
		b.Fatal(err)
	}
	data := encode(b, defs, "nav_msgs/msg/Odometry", odometryValue())
	x, _ := p.Field("pose.pose.position.x")
	cov, _ := p.Field("pose.covariance")
	var m Message
	buf := make([]float64, 0, 36)
	b.ReportAllocs()
	for b.Loop() {
		if err := p.DecodeInto(&m, data); err != nil {
			b.Fatal(err)
		}
		if _, err := m.FloatAt(x); err != nil {
			b.Fatal(err)
		}
		if buf, err = m.Float64sAt(cov, buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
