package qos

import (
	"fmt"
	"time"
)

// RMWProfile is a QoS profile as the integer fields of rmw_qos_profile_t
// (rmw/types.h), the form every ROS 2 client library takes. Durations of
// zero are RMW_DURATION_UNSPECIFIED, which rmw treats as infinite.
type RMWProfile struct {
	History                      int
	Depth                        int
	Reliability                  int
	Durability                   int
	Deadline                     time.Duration
	Lifespan                     time.Duration
	Liveliness                   int
	LivelinessLeaseDuration      time.Duration
	AvoidROSNamespaceConventions bool
}

// The mapping to rmw integers is spelled out rather than cast, so that a
// renumbering of the Go enums cannot silently change what goes on the wire.
var (
	rmwHistory = map[History]int{
		HistorySystemDefault: 0, // RMW_QOS_POLICY_HISTORY_SYSTEM_DEFAULT
		HistoryKeepLast:      1, // RMW_QOS_POLICY_HISTORY_KEEP_LAST
		HistoryKeepAll:       2, // RMW_QOS_POLICY_HISTORY_KEEP_ALL
	}
	rmwReliability = map[Reliability]int{
		ReliabilitySystemDefault: 0, // RMW_QOS_POLICY_RELIABILITY_SYSTEM_DEFAULT
		ReliabilityReliable:      1, // RMW_QOS_POLICY_RELIABILITY_RELIABLE
		ReliabilityBestEffort:    2, // RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT
	}
	rmwDurability = map[Durability]int{
		DurabilitySystemDefault:  0, // RMW_QOS_POLICY_DURABILITY_SYSTEM_DEFAULT
		DurabilityTransientLocal: 1, // RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
		DurabilityVolatile:       2, // RMW_QOS_POLICY_DURABILITY_VOLATILE
	}
	rmwLiveliness = map[Liveliness]int{
		LivelinessSystemDefault: 0, // RMW_QOS_POLICY_LIVELINESS_SYSTEM_DEFAULT
		LivelinessAutomatic:     1, // RMW_QOS_POLICY_LIVELINESS_AUTOMATIC
		LivelinessManualByTopic: 3, // RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC
	}
)

// RMW converts p to rmw's integer form after validating it.
func (p Profile) RMW() (RMWProfile, error) {
	if err := p.Validate(); err != nil {
		return RMWProfile{}, err
	}
	h, okH := rmwHistory[p.History]
	r, okR := rmwReliability[p.Reliability]
	d, okD := rmwDurability[p.Durability]
	l, okL := rmwLiveliness[p.Liveliness]
	if !okH || !okR || !okD || !okL {
		return RMWProfile{}, fmt.Errorf("%w: %+v has no rmw equivalent", ErrInvalid, p)
	}
	return RMWProfile{
		History:                      h,
		Depth:                        int(p.Depth),
		Reliability:                  r,
		Durability:                   d,
		Deadline:                     p.Deadline,
		Lifespan:                     p.Lifespan,
		Liveliness:                   l,
		LivelinessLeaseDuration:      p.LivelinessLeaseDuration,
		AvoidROSNamespaceConventions: p.AvoidROSNamespaceConventions,
	}, nil
}
