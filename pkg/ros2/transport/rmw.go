package transport

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
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
	rmwHistory = map[qos.History]int{
		qos.HistorySystemDefault: 0, // RMW_QOS_POLICY_HISTORY_SYSTEM_DEFAULT
		qos.HistoryKeepLast:      1, // RMW_QOS_POLICY_HISTORY_KEEP_LAST
		qos.HistoryKeepAll:       2, // RMW_QOS_POLICY_HISTORY_KEEP_ALL
	}
	rmwReliability = map[qos.Reliability]int{
		qos.ReliabilitySystemDefault: 0, // RMW_QOS_POLICY_RELIABILITY_SYSTEM_DEFAULT
		qos.ReliabilityReliable:      1, // RMW_QOS_POLICY_RELIABILITY_RELIABLE
		qos.ReliabilityBestEffort:    2, // RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT
	}
	rmwDurability = map[qos.Durability]int{
		qos.DurabilitySystemDefault:  0, // RMW_QOS_POLICY_DURABILITY_SYSTEM_DEFAULT
		qos.DurabilityTransientLocal: 1, // RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
		qos.DurabilityVolatile:       2, // RMW_QOS_POLICY_DURABILITY_VOLATILE
	}
	rmwLiveliness = map[qos.Liveliness]int{
		qos.LivelinessSystemDefault: 0, // RMW_QOS_POLICY_LIVELINESS_SYSTEM_DEFAULT
		qos.LivelinessAutomatic:     1, // RMW_QOS_POLICY_LIVELINESS_AUTOMATIC
		qos.LivelinessManualByTopic: 3, // RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC
	}
)

// RMW converts p to rmw's integer form after validating it.
func RMW(p qos.Profile) (RMWProfile, error) {
	if err := p.Validate(); err != nil {
		return RMWProfile{}, err
	}
	h, okH := rmwHistory[p.History]
	r, okR := rmwReliability[p.Reliability]
	d, okD := rmwDurability[p.Durability]
	l, okL := rmwLiveliness[p.Liveliness]
	if !okH || !okR || !okD || !okL {
		return RMWProfile{}, fmt.Errorf("%w: %+v has no rmw equivalent", qos.ErrInvalid, p)
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

// ServiceQoS is rmw_qos_profile_services_default, the profile of every
// parameter and lifecycle service: reliable, volatile, keep last 10.
func ServiceQoS() qos.Profile {
	return qos.Profile{
		History:     qos.HistoryKeepLast,
		Depth:       10,
		Reliability: qos.ReliabilityReliable,
		Durability:  qos.DurabilityVolatile,
	}
}
