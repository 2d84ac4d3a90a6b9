package sim

import (
	"math"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// phase boundaries as fractions of the flight's duration.
const (
	groundEnd       = 0.03
	takeoffEnd      = 0.10
	gpsLossStart    = 0.35
	gpsLossPeak     = 0.50
	recoveryEnd     = 0.60
	silentStart     = 0.70
	silentEnd       = 0.78
	returnStart     = 0.92
	resetStart      = 0.95
	resetEnd        = 0.955
	landStart       = 0.97
	lowLightStart   = 0.25
	lowLightEnd     = 0.30
	vioLostStart    = 0.42
	vioLostEnd      = 0.48
	aggressiveStart = 0.80
	aggressiveEnd   = 0.85
	// The pilot takes over (manual) in the tail of the GPS loss, while the
	// belief is still unknown, then hands back to offboard.
	pilotStart = 0.52
	pilotEnd   = 0.58
	// The battery sags through PX4's low (0.15), critical (0.07) and
	// emergency (0.05) thresholds during the landing.
	sagStart = 0.90
	sagEnd   = 0.98
	sagFloor = 0.04
	// The pilot's kill switch, then disarm, at touchdown.
	killStart = 0.985
	disarm    = 0.993
)

// Standard deviations the scenario's estimator declares.
const (
	groundPositionStd  = 1.0  // m, before the estimator converges
	nominalPositionStd = 0.2  // m
	gpsLossPeakStd     = 3.0  // m, at the worst of the GPS loss
	nominalVelocityStd = 0.05 // m/s
	gpsLossVelocityStd = 0.6  // m/s, added at the worst of the GPS loss
	orientationStd     = 0.01 // rad
	biasVariance       = 1e-6
	orbitRadius        = 20.0 // m
	cruiseAltitude     = 15.0 // m
)

// state is the vehicle at one belief stamp, in domain terms.
type state struct {
	stamp        int64
	position     [3]float64
	velocity     [3]float64
	q            [4]float64
	covariance   []float64 // nil during an estimator reset
	flight       decisions.FlightStatus
	mission      decisions.MissionStatus
	perception   decisions.PerceptionMode
	assessorLive bool
}

// lerp returns the value at x of the line through (x0, y0) and (x1, y1),
// clamped to [x0, x1].
func lerp(x, x0, x1, y0, y1 float64) float64 {
	if x <= x0 {
		return y0
	}
	if x >= x1 {
		return y1
	}
	return y0 + (y1-y0)*(x-x0)/(x1-x0)
}

// positionStd is the declared position standard deviation at fraction f.
func positionStd(f float64) float64 {
	switch {
	case f < groundEnd:
		return groundPositionStd
	case f < takeoffEnd:
		return lerp(f, groundEnd, takeoffEnd, groundPositionStd, nominalPositionStd)
	case f < gpsLossStart:
		return nominalPositionStd
	case f < gpsLossPeak:
		return lerp(f, gpsLossStart, gpsLossPeak, nominalPositionStd, gpsLossPeakStd)
	case f < recoveryEnd:
		return lerp(f, gpsLossPeak, recoveryEnd, gpsLossPeakStd, nominalPositionStd)
	default:
		return nominalPositionStd
	}
}

// velocityStd grows with the GPS outage, since velocity is then dead-reckoned.
func velocityStd(f float64) float64 {
	extra := 0.0
	switch {
	case f >= gpsLossStart && f < gpsLossPeak:
		extra = lerp(f, gpsLossStart, gpsLossPeak, 0, gpsLossVelocityStd)
	case f >= gpsLossPeak && f < recoveryEnd:
		extra = lerp(f, gpsLossPeak, recoveryEnd, gpsLossVelocityStd, 0)
	}
	return nominalVelocityStd + extra
}

// batteryAt is the remaining charge at fraction f: a steady drain, then a
// sag under the landing's load down to sagFloor.
func batteryAt(f float64) float64 {
	steady := 1.0 - 0.45*f
	if f < sagStart {
		return steady
	}
	return lerp(f, sagStart, sagEnd, 1.0-0.45*sagStart, sagFloor)
}

// The health a PX4 vehicle reports through the GPS loss, as fractions of
// the flight: the receiver loses its fix at gpsLossStart and has a 3D fix
// again at gpsLossPeak, with few satellites until gnssFewEnd; the
// estimator stops fusing it a beat later and dead-reckons for a stretch;
// PX4 flags the global position invalid in the worst of it.
const (
	fusionLostStart     = 0.36
	fusionLostEnd       = 0.52
	deadReckoningStart  = 0.40
	deadReckoningEnd    = 0.51
	globalInvalidStart  = 0.42
	globalInvalidEnd    = 0.515
	gnssFewEnd          = 0.55
	nominalSatellites   = 12
	recoveringSatellite = 5
)

// healthAt is the health the vehicle reports at fraction f, as a PX4 1.16
// reports it (every failsafe flag known).
func healthAt(f float64) decisions.Health {
	h := decisions.Health{Fix: decisions.GNSSFix3D, Satellites: nominalSatellites,
		EstimatorReported: true, DeadReckoningReported: true, FailsafeReported: true, NavigatorFailureReported: true,
		Estimator: 1<<decisions.EstimatorGNSSFused | 1<<decisions.EstimatorGNSSHeightFused |
			1<<decisions.EstimatorTiltAligned | 1<<decisions.EstimatorYawAligned}
	switch {
	case f >= gpsLossStart && f < gpsLossPeak:
		h.Fix, h.Satellites = decisions.GNSSNoFix, 0
	case f >= gpsLossPeak && f < gnssFewEnd:
		h.Satellites = recoveringSatellite
	}
	if f >= fusionLostStart && f < fusionLostEnd {
		h.Estimator &^= 1<<decisions.EstimatorGNSSFused | 1<<decisions.EstimatorGNSSHeightFused
	}
	if f >= deadReckoningStart && f < deadReckoningEnd {
		h.Estimator |= 1 << decisions.EstimatorDeadReckoning
	}
	if f >= globalInvalidStart && f < globalInvalidEnd {
		h.Failsafe |= 1 << decisions.FailsafeGlobalPositionInvalid
	}
	return h
}

// assessorLiveAt says whether the self-assessor publishes at fraction f.
func assessorLiveAt(f float64) bool { return f < silentStart || f >= silentEnd }

func perceptionAt(f float64) decisions.PerceptionMode {
	switch {
	case f >= lowLightStart && f < lowLightEnd:
		return decisions.PerceptionLowLight
	case f >= vioLostStart && f < vioLostEnd:
		return decisions.PerceptionVIOLost
	case f >= aggressiveStart && f < aggressiveEnd:
		return decisions.PerceptionMotionAggressive
	default:
		return decisions.PerceptionNominal
	}
}

// covariance builds the 15x15 row-major covariance: the declared variances
// on the diagonal and a small position-velocity correlation per axis, which
// keeps the matrix positive semi-definite (|rho| = 0.1).
func covariance(f float64) []float64 {
	const n = decisions.CovarianceDim
	cov := make([]float64, decisions.CovarianceLen)
	ps, vs := positionStd(f), velocityStd(f)
	pos := [3]float64{ps, ps, 0.8 * ps}
	for i := 0; i < 3; i++ {
		cov[i*n+i] = pos[i] * pos[i]
		cov[(3+i)*n+3+i] = vs * vs
		cov[(6+i)*n+6+i] = orientationStd * orientationStd
		cov[(9+i)*n+9+i] = biasVariance
		cov[(12+i)*n+12+i] = biasVariance
		c := 0.1 * pos[i] * vs
		cov[i*n+3+i], cov[(3+i)*n+i] = c, c
	}
	return cov
}

// vehicleAt returns the scripted vehicle at stamp (ns) of a flight lasting
// duration (ns).
func vehicleAt(stamp, duration int64) state {
	f := float64(stamp) / float64(duration)
	t := float64(stamp) / 1e9
	s := state{stamp: stamp, perception: perceptionAt(f)}

	// Flight: climb after takeoff, orbit, return and land at the end.
	alt := lerp(f, groundEnd, takeoffEnd, 0, cruiseAltitude)
	if f >= landStart {
		alt = lerp(f, landStart, 1, cruiseAltitude, 0)
	}
	const omega = 0.1 // rad/s around the orbit
	radius := lerp(f, groundEnd, takeoffEnd, 0, orbitRadius)
	if f >= returnStart {
		radius = lerp(f, returnStart, landStart, orbitRadius, 0)
	}
	yaw := omega * t
	s.position = [3]float64{radius * math.Cos(yaw), radius * math.Sin(yaw), alt}
	if f >= groundEnd && f < returnStart {
		s.velocity = [3]float64{-radius * omega * math.Sin(yaw), radius * omega * math.Cos(yaw), 0}
	}
	heading := yaw + math.Pi/2
	s.q = [4]float64{math.Cos(heading / 2), 0, 0, math.Sin(heading / 2)}

	if f < resetStart || f >= resetEnd {
		s.covariance = covariance(f)
	}
	s.assessorLive = assessorLiveAt(f)

	s.flight = decisions.FlightStatus{
		Armed:      f >= groundEnd*0.5 && f < disarm,
		Mode:       decisions.FlightModeInit,
		BatteryV:   16.8 - 2.0*f,
		BatteryPct: batteryAt(f),
	}
	s.mission = decisions.MissionStatus{Mode: decisions.MissionModeIdle, StartedSimNs: decisions.NotStarted}
	switch {
	case f >= killStart && f < disarm:
		s.flight.Mode = decisions.FlightModeKill
	case f >= landStart:
		s.flight.Mode = decisions.FlightModeLand
	case f >= returnStart:
		s.flight.Mode = decisions.FlightModeRTL
	case f >= pilotStart && f < pilotEnd:
		s.flight.Mode = decisions.FlightModeManual
	case f >= groundEnd:
		s.flight.Mode = decisions.FlightModeOffboard
	}
	if f >= groundEnd {
		start := int64(groundEnd * float64(duration))
		s.mission = decisions.MissionStatus{
			Mode:         decisions.MissionModeNavigate,
			Progress:     lerp(f, groundEnd, returnStart, 0, 1),
			StartedSimNs: start,
			Goal: &decisions.Goal{
				HasPosition:  true,
				PositionENU:  [3]float64{orbitRadius, 0, cruiseAltitude},
				YawRad:       math.NaN(),
				MetadataJSON: `{"waypoint":"orbit"}`,
			},
		}
		switch {
		case f >= 1-1e-9:
			s.mission.Mode, s.mission.Goal = decisions.MissionModeDone, nil
		case f >= returnStart:
			s.mission.Mode = decisions.MissionModeReturn
			s.mission.Goal = &decisions.Goal{HasPosition: true, YawRad: 0, MetadataJSON: `{"waypoint":"home"}`}
		}
	}
	return s
}
