package mapping

import (
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Topic names used in rejection messages.
const (
	topicOdometry      = "vehicle_odometry"
	topicLocalPosition = "vehicle_local_position"
	topicAttitude      = "vehicle_attitude"
	topicStatus        = "vehicle_status"
	topicBattery       = "battery_status"
	topicNavOdometry   = "nav_msgs/Odometry"
	topicBatteryState  = "sensor_msgs/BatteryState"
)

// maxStampUs is the largest µs time whose ns value fits an int64.
const maxStampUs = math.MaxInt64 / 1000

// px4SampleNs returns a PX4 sample time in ns: timestamp_sample, or
// timestamp where the release has no timestamp_sample (it reads 0). Zero
// means unset in PX4's clock; beyond int64 ns is corrupt.
func px4SampleNs(topic string, timestamp, sample uint64) (int64, *RejectError) {
	field, us := "timestamp_sample", sample
	if us == 0 {
		field, us = "timestamp", timestamp
	}
	if us == 0 {
		return 0, reject(ReasonStampInvalid, topic, "timestamp_sample", 0, "no sample time (timestamp_sample and timestamp are 0)")
	}
	if us > maxStampUs {
		return 0, reject(ReasonStampInvalid, topic, field, us, "µs beyond the int64 ns range")
	}
	return int64(us) * 1000, nil
}

// rosStampNs checks a header stamp: zero is an unset header, negative is
// before the epoch.
func rosStampNs(topic string, ns int64) (int64, *RejectError) {
	if ns <= 0 {
		return 0, reject(ReasonStampInvalid, topic, "header.stamp", ns, "must be > 0 ns (0 is an unset header)")
	}
	return ns, nil
}

// px4Quaternion checks a PX4 w,x,y,z quaternion and returns it normalized.
func px4Quaternion(topic string, q [4]float32) ([4]float64, *RejectError) {
	if math.IsNaN(float64(q[0])) {
		return [4]float64{}, reject(ReasonQuaternion, topic, "q", q, "q[0] is NaN: PX4 marks the attitude invalid")
	}
	u, why := unitQuaternion([4]float64{float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])})
	if why != "" {
		return u, reject(ReasonQuaternion, topic, "q", q, why)
	}
	return u, nil
}

// finite3 replaces non-finite components by NaN (unknown).
func finite3(v [3]float64) [3]float64 {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v[i] = nan
		}
	}
	return v
}

// nan3 is an unknown vector.
var nan3 = [3]float64{nan, nan, nan}

// unknownWhereNaN makes an axis's variance unknown when its value is: a
// small variance around an absent value would claim knowledge.
func (c *covariance) unknownWhereNaN(first int, v [3]float64) {
	for k, x := range v {
		if math.IsNaN(x) {
			c[(first+k)*dim+first+k] = nan
		}
	}
}

// complete finishes s: bias and accel unknown, covariance finished, mission
// default, and the belief validated.
func complete(s *State, c *covariance, flight decisions.FlightStatus, topic string) *RejectError {
	s.AccelFLU, s.AccelBias, s.GyroBias = nan3, nan3, nan3
	c.setDiag(blockAccelBias, nan3)
	c.setDiag(blockGyroBias, nan3)
	c.finish()
	s.Covariance = *c
	s.Flight = flight
	s.Mission = DefaultMission()
	b := decisions.Belief{StampSimNs: s.StampNs, OrientationQ: s.OrientationQ, Flight: s.Flight, Mission: s.Mission}
	if err := b.Validate(); err != nil {
		e := reject(ReasonBelief, topic, "belief", s.StampNs, err.Error())
		e.Err = err
		return e
	}
	return nil
}

// MapPX4Odometry maps one vehicle_odometry sample with the flight status in
// force (see docs/inputs.md). It checks the sample alone; stamp order is the
// Tracker's job.
func MapPX4Odometry(o PX4Odometry, flight decisions.FlightStatus) (State, error) {
	var s State
	if err := mapPX4Odometry(&s, &o, flight); err != nil {
		return State{}, err
	}
	return s, nil
}

func mapPX4Odometry(s *State, o *PX4Odometry, flight decisions.FlightStatus) *RejectError {
	var err *RejectError
	if s.StampNs, err = px4SampleNs(topicOdometry, o.Timestamp, o.TimestampSample); err != nil {
		return err
	}
	if o.PoseFrame != PoseFrameNED && o.PoseFrame != PoseFrameFRD {
		return reject(ReasonFrame, topicOdometry, "pose_frame", o.PoseFrame, "must be 1 (NED) or 2 (FRD)")
	}
	qNED, err := px4Quaternion(topicOdometry, o.Q)
	if err != nil {
		return err
	}
	s.OrientationQ = enuFromNEDFRD(qNED)
	r := rotation(s.OrientationQ)
	var c covariance

	s.PositionENU = finite3(nedToENU(o.Position))
	// Variances permute like the axes (N<->E) but never change sign.
	pv := o.PositionVariance
	c.setDiag(blockPosition, [3]float64{variance(float64(pv[1])), variance(float64(pv[0])), variance(float64(pv[2]))})
	c.unknownWhereNaN(blockPosition, s.PositionENU)

	vv := [3]float64{float64(o.VelocityVariance[0]), float64(o.VelocityVariance[1]), float64(o.VelocityVariance[2])}
	switch o.VelocityFrame {
	case VelocityFrameNED, VelocityFrameFRD:
		s.VelocityENU = finite3(nedToENU(o.Velocity))
		s.VelocityFLU = finite3(apply(&r, s.VelocityENU, true))
		c.setDiag(blockVelocity, [3]float64{variance(vv[1]), variance(vv[0]), variance(vv[2])})
	case VelocityFrameBodyFRD:
		s.VelocityFLU = finite3(frdToFLU(o.Velocity))
		s.VelocityENU = finite3(apply(&r, s.VelocityFLU, false))
		c.setBlock(blockVelocity, worldBlock([3][3]float64{{vv[0], 0, 0}, {0, vv[1], 0}, {0, 0, vv[2]}}, &r))
	default:
		s.VelocityENU, s.VelocityFLU = nan3, nan3
		c.setDiag(blockVelocity, nan3)
	}
	c.unknownWhereNaN(blockVelocity, s.VelocityENU)

	s.AngularVelocityFLU = finite3(frdToFLU(o.AngularVelocity))
	s.AngularVelocityENU = finite3(apply(&r, s.AngularVelocityFLU, false))

	// Roll, pitch, yaw variances: FRD to FLU flips the signs of pitch and
	// yaw, which leaves their variances unchanged.
	ov := o.OrientationVariance
	c.setDiag(blockOrientation, [3]float64{variance(float64(ov[0])), variance(float64(ov[1])), variance(float64(ov[2]))})
	return complete(s, &c, flight, topicOdometry)
}

// MapPX4LocalPosition maps one vehicle_local_position sample, with the
// vehicle_attitude chosen for it and the flight status in force (see
// docs/inputs.md). It checks the sample alone; stamp order is the Tracker's
// job.
func MapPX4LocalPosition(p PX4LocalPosition, att PX4Attitude, flight decisions.FlightStatus) (State, error) {
	var s State
	if err := mapPX4LocalPosition(&s, &p, &att, flight); err != nil {
		return State{}, err
	}
	return s, nil
}

func mapPX4LocalPosition(s *State, p *PX4LocalPosition, att *PX4Attitude, flight decisions.FlightStatus) *RejectError {
	var err *RejectError
	if s.StampNs, err = px4SampleNs(topicLocalPosition, p.Timestamp, p.TimestampSample); err != nil {
		return err
	}
	qNED, err := px4Quaternion(topicAttitude, att.Q)
	if err != nil {
		return err
	}
	s.OrientationQ = enuFromNEDFRD(qNED)
	r := rotation(s.OrientationQ)
	var c covariance

	// Following the reference adapter: position std (eph, eph, epv); the
	// same for velocity with (evh, evh, evv). eph is horizontal, so the
	// N/E swap changes nothing.
	s.PositionENU = finite3(nedToENU([3]float32{p.X, p.Y, p.Z}))
	h, v := varianceFromStd(float64(p.EPH)), varianceFromStd(float64(p.EPV))
	if !p.XYValid {
		h = nan
	}
	if !p.ZValid {
		v = nan
	}
	c.setDiag(blockPosition, [3]float64{h, h, v})
	c.unknownWhereNaN(blockPosition, s.PositionENU)

	s.VelocityENU = finite3(nedToENU([3]float32{p.VX, p.VY, p.VZ}))
	s.VelocityFLU = finite3(apply(&r, s.VelocityENU, true))
	h, v = varianceFromStd(float64(p.EVH)), varianceFromStd(float64(p.EVV))
	if !p.VXYValid {
		h = nan
	}
	if !p.VZValid {
		v = nan
	}
	c.setDiag(blockVelocity, [3]float64{h, h, v})
	c.unknownWhereNaN(blockVelocity, s.VelocityENU)

	// No angular velocity in these topics.
	s.AngularVelocityENU, s.AngularVelocityFLU = nan3, nan3

	// Roll and pitch from tilt_var, yaw from heading_var (1.15+); unknown
	// before that: the topics carry no attitude variance.
	o := nan3
	if p.HasHeadingTiltVar {
		t := variance(float64(p.TiltVar))
		o = [3]float64{t, t, variance(float64(p.HeadingVar))}
	}
	c.setDiag(blockOrientation, o)
	return complete(s, &c, flight, topicLocalPosition)
}

// MapOdometry maps one nav_msgs/Odometry message (ENU pose, FLU twist) with
// the flight status in force (see docs/inputs.md). It checks the message
// alone; stamp order is the Tracker's job.
func MapOdometry(o *Odometry, flight decisions.FlightStatus) (State, error) {
	var s State
	if err := mapOdometry(&s, o, flight); err != nil {
		return State{}, err
	}
	return s, nil
}

func mapOdometry(s *State, o *Odometry, flight decisions.FlightStatus) *RejectError {
	var err *RejectError
	if s.StampNs, err = rosStampNs(topicNavOdometry, o.StampNs); err != nil {
		return err
	}
	if nedFrame(o.FrameID) {
		return reject(ReasonFrame, topicNavOdometry, "header.frame_id", fmt.Sprintf("%q", o.FrameID), "a NED/FRD frame (REP-105 suffix); the pose must be ENU")
	}
	if nedFrame(o.ChildFrameID) {
		return reject(ReasonFrame, topicNavOdometry, "child_frame_id", fmt.Sprintf("%q", o.ChildFrameID), "a NED/FRD frame (REP-105 suffix); the twist must be FLU")
	}
	q := o.Orientation
	u, why := unitQuaternion([4]float64{q.W, q.X, q.Y, q.Z})
	if why != "" {
		return reject(ReasonQuaternion, topicNavOdometry, "pose.pose.orientation", fmt.Sprintf("(x %v, y %v, z %v, w %v)", q.X, q.Y, q.Z, q.W), why)
	}
	s.OrientationQ = canonicalHemisphere(u)
	r := rotation(s.OrientationQ)
	var c covariance
	c.copyPose(&o.PoseCovariance)
	c.copyTwistLinear(&o.TwistCovariance, &r)

	s.PositionENU = finite3([3]float64{o.Position.X, o.Position.Y, o.Position.Z})
	c.unknownWhereNaN(blockPosition, s.PositionENU)
	s.VelocityFLU = finite3([3]float64{o.Linear.X, o.Linear.Y, o.Linear.Z})
	s.VelocityENU = finite3(apply(&r, s.VelocityFLU, false))
	c.unknownWhereNaN(blockVelocity, s.VelocityENU)
	s.AngularVelocityFLU = finite3([3]float64{o.Angular.X, o.Angular.Y, o.Angular.Z})
	s.AngularVelocityENU = finite3(apply(&r, s.AngularVelocityFLU, false))
	return complete(s, &c, flight, topicNavOdometry)
}

// nedFrame reports whether a frame id names a NED or FRD frame by the
// REP-105 convention (suffix "_ned" or "_frd", as MAVROS's odom_ned,
// base_link_frd).
func nedFrame(id string) bool {
	n := len(id)
	if n < 4 {
		return false
	}
	s := id[n-4:]
	return s == "_ned" || s == "_frd" || s == "_NED" || s == "_FRD"
}
