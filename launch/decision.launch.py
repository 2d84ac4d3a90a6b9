"""Launch the ghost decision node.

    ros2 launch ghost decision.launch.py
    ros2 launch ghost decision.launch.py namespace:=drone1 use_sim_time:=true
    ros2 launch ghost decision.launch.py config_file:=/path/to/my.yaml \\
        state_topic:=/fmu/out/vehicle_state log_level:=debug
    ros2 launch ghost decision.launch.py executor:=px4    # act on PX4
    ros2 launch ghost decision.launch.py input_source:=px4 executor:=px4 \\
        px4_namespace:=/px4_1 target_vehicle:=2    # PX4 SITL instance 1
    ros2 launch ghost decision.launch.py recording_path:=/tmp/node.mcap
    ros2 launch ghost decision.launch.py seal_key_file:=/etc/ghost/node.key
    ros2 launch ghost decision.launch.py enclave:=/ghost/decision_node
    ros2 launch ghost decision.launch.py respawn:=true respawn_delay:=1.0

Parameters come from config_file (the installed config/decision.yaml
documents every one with its default); use_sim_time, and the arguments that
name a parameter when given (policy, executor, target_vehicle, ...),
override it. Topic arguments remap the node's default topic names, so they
work unless the config file renames a topic itself.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'ghost'
EXECUTABLE = 'decision_node'
NODE_NAME = 'decision_node'

# (launch argument, the node's default topic). The defaults equal the
# topics.* parameters of config/decision.yaml, so nothing is remapped unless
# an argument is given.
TOPICS = [
    ('state_topic', '/state/nav'),
    ('self_assessment_topic', '/self_assessment'),
    ('perception_mode_topic', '/perception/mode'),
    ('action_evidence_topic', '/decisions/evidence'),
    ('parameter_events_topic', '/parameter_events'),
    ('transition_event_topic', '~/transition_event'),
    ('decisions_topic', '/decisions'),
    ('diagnostics_topic', '/diagnostics'),
    ('actions_topic', '/decisions/actions'),
    ('seal_topic', '/decisions/seal'),
]


def target_vehicle(text):
    """The executors.target_vehicle a target_vehicle argument gives: 1..255."""
    try:
        vehicle = int(text.strip())
    except ValueError:
        vehicle = None
    if vehicle is None or not 1 <= vehicle <= 255:
        raise ValueError(f'target_vehicle must be a PX4 system id, 1 to 255, not {text!r}')
    return vehicle


def px4_namespace(text):
    """The px4.namespace a px4_namespace argument gives: absolute, no trailing slash."""
    if not text.startswith('/') or text.endswith('/'):
        raise ValueError(
            f'px4_namespace must be absolute without a trailing slash, e.g. /px4_1, not {text!r}')
    return text


def _node(context):
    def value(name):
        return LaunchConfiguration(name).perform(context)

    overrides = {'use_sim_time': LaunchConfiguration('use_sim_time')}
    # An empty policy leaves the config file's choice in force.
    if value('policy'):
        overrides['policy'] = LaunchConfiguration('policy')
    if value('policy_file'):
        overrides['policy_file'] = LaunchConfiguration('policy_file')
    if value('input_source'):
        overrides['input.source'] = LaunchConfiguration('input_source')
    # Acting stays off unless asked for: the enabled kinds and the kill
    # switch come from config_file.
    if value('executor'):
        overrides['executors.executor'] = LaunchConfiguration('executor')
    # PX4 instance N of a multi-vehicle SITL: MAV_SYS_ID N+1, its topics
    # under /px4_N (docs/px4-sitl.md).
    if value('target_vehicle'):
        overrides['executors.target_vehicle'] = target_vehicle(value('target_vehicle'))
    if value('px4_namespace'):
        overrides['px4.namespace'] = px4_namespace(value('px4_namespace'))
    if value('recording_path'):
        overrides['recording.path'] = LaunchConfiguration('recording_path')
    # Sealing stays off unless a key is given (docs/seals.md).
    if value('seal_key_file'):
        overrides['seal.key_file'] = LaunchConfiguration('seal_key_file')
    arguments = ['--ros-args', '--log-level', LaunchConfiguration('log_level')]
    # SROS2 (docs/security.md): rcl takes the enclave from --enclave (empty:
    # rcl's default, the root enclave "/"); ROS_SECURITY_ENCLAVE_OVERRIDE,
    # when set, wins over both. Security is on only with
    # ROS_SECURITY_ENABLE=true in the environment.
    if value('enclave'):
        arguments += ['--enclave', LaunchConfiguration('enclave')]
    # A command the node runs under, e.g. 'nice -n -10' or 'chrt -f 10':
    # on a machine the node shares with the simulator or the autopilot,
    # its decisions wait for a core unless it has priority (docs/px4-sitl.md).
    prefix = {}
    if value('launch_prefix'):
        prefix['prefix'] = LaunchConfiguration('launch_prefix')
    # Respawn (docs/faults.md): a node that dies is started again after
    # respawn_delay seconds; with recording_path it keeps the dead node's
    # file and records to the next one.
    respawn = value('respawn').strip().lower()
    if respawn not in ('true', 'false'):
        raise ValueError(f'respawn must be true or false, not {respawn!r}')
    delay = float(value('respawn_delay'))
    if not delay >= 0:
        raise ValueError(f'respawn_delay must be a number of seconds >= 0, not {delay!r}')
    return [
        Node(
            package=PACKAGE,
            executable=EXECUTABLE,
            name=NODE_NAME,
            namespace=LaunchConfiguration('namespace'),
            parameters=[LaunchConfiguration('config_file'), overrides],
            arguments=arguments,
            remappings=[(topic, LaunchConfiguration(arg)) for arg, topic in TOPICS],
            output='screen',
            emulate_tty=True,
            respawn=respawn == 'true',
            respawn_delay=delay,
            **prefix,
        )
    ]


def generate_launch_description():
    default_config = os.path.join(
        get_package_share_directory(PACKAGE), 'config', 'decision.yaml')
    arguments = [
        DeclareLaunchArgument(
            'config_file', default_value=default_config,
            description='ROS 2 params file for the decision node'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='namespace of the node; relative topic names resolve in it'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='false',
            description='standard ROS 2 use_sim_time parameter'),
        DeclareLaunchArgument(
            'log_level', default_value='info',
            description='log level: debug, info, warn, error or fatal'),
        DeclareLaunchArgument(
            'policy', default_value='',
            description='decision policy id; empty keeps the config file value'),
        DeclareLaunchArgument(
            'policy_file', default_value='',
            description='YAML rule policy file; empty keeps the config file value'),
        DeclareLaunchArgument(
            'input_source', default_value='',
            description='ghost, px4 or odometry; empty keeps the config file value'),
        DeclareLaunchArgument(
            'recording_path', default_value='',
            description='MCAP file the node records its inputs and decisions to; '
                        'empty keeps the config file value (by default none)'),
        DeclareLaunchArgument(
            'executor', default_value='',
            description='executor decisions act through: px4 or log; empty keeps '
                        'the config file value (by default none: every decision is advisory)'),
        DeclareLaunchArgument(
            'target_vehicle', default_value='',
            description='system id (PX4 MAV_SYS_ID, 1 to 255) of the vehicle the executor '
                        'commands; PX4 SITL instance N has N+1; empty keeps the config file value'),
        DeclareLaunchArgument(
            'px4_namespace', default_value='',
            description='namespace of the PX4 topics, e.g. /px4_1 for PX4 SITL instance 1; '
                        'empty keeps the config file value'),
        DeclareLaunchArgument(
            'seal_key_file', default_value='',
            description='PEM file of the Ed25519 key that seals what the node takes and '
                        'publishes (docs/seals.md); empty keeps the config file value'),
        DeclareLaunchArgument(
            'launch_prefix', default_value='',
            description='command the node runs under, e.g. "nice -n -10" or "chrt -f 10" '
                        '(both need CAP_SYS_NICE); empty: none'),
        DeclareLaunchArgument(
            'enclave', default_value='',
            description='SROS2 enclave of the node in ROS_SECURITY_KEYSTORE, e.g. '
                        '/ghost/decision_node (config/sros2/decision_node.policy.xml); '
                        'empty: rcl\'s default, the root enclave'),
        DeclareLaunchArgument(
            'respawn', default_value='false',
            description='true: start the node again when it dies (launch_ros respawn); '
                        'its recording goes on in a new file beside the dead node\'s'),
        DeclareLaunchArgument(
            'respawn_delay', default_value='2.0',
            description='seconds to wait before a respawn'),
    ]
    for arg, topic in TOPICS:
        arguments.append(DeclareLaunchArgument(
            arg, default_value=topic, description=f'topic the node uses for {topic}'))
    return LaunchDescription(arguments + [OpaqueFunction(function=_node)])
