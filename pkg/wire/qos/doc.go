// Package qos holds the ROS 2 quality-of-service profiles: their policies
// with the integers of rmw/types.h, the profiles the node uses (inputs,
// /decisions, parameter events, services), the parameter spellings, the
// rmw form a client library takes, and the offered_qos_profiles YAML that
// rosbag2 writes into a recording's channel metadata.
//
// It is data: transports, recordings, the input table and the
// configuration all describe topics with it, so it must import nothing of
// the project and do no I/O.
package qos
