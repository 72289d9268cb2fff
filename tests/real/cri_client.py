"""A minimal CRI (runtime.v1) client: only the messages these tests send or read.

The message descriptors are declared here, field by field, from the CRI's published field numbers, and
built at run time with descriptor_pb2; nothing is generated from another project's .proto files.
Unknown fields in answers (everything we do not declare) are skipped by protobuf.
"""
from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
STR, BOOL, U32, MSG, ENUM = F.TYPE_STRING, F.TYPE_BOOL, F.TYPE_UINT32, F.TYPE_MESSAGE, F.TYPE_ENUM
MAP = "map"  # a map<string,string> field

# message name -> [(field name, number, type, message or enum type name)]
MESSAGES = {
    "StatusRequest": [("verbose", 1, BOOL, None)],
    "StatusResponse": [("info", 2, MAP, None)],
    "PodSandboxMetadata": [("name", 1, STR, None), ("uid", 2, STR, None), ("namespace", 3, STR, None),
                           ("attempt", 4, U32, None)],
    "NamespaceOption": [("network", 1, ENUM, "NamespaceMode"), ("pid", 2, ENUM, "NamespaceMode"),
                        ("ipc", 3, ENUM, "NamespaceMode")],
    "LinuxSandboxSecurityContext": [("namespace_options", 1, MSG, "NamespaceOption")],
    "LinuxPodSandboxConfig": [("cgroup_parent", 1, STR, None),
                              ("security_context", 2, MSG, "LinuxSandboxSecurityContext")],
    "PodSandboxConfig": [("metadata", 1, MSG, "PodSandboxMetadata"), ("hostname", 2, STR, None),
                         ("log_directory", 3, STR, None), ("linux", 8, MSG, "LinuxPodSandboxConfig")],
    "RunPodSandboxRequest": [("config", 1, MSG, "PodSandboxConfig"), ("runtime_handler", 2, STR, None)],
    "RunPodSandboxResponse": [("pod_sandbox_id", 1, STR, None)],
    "StopPodSandboxRequest": [("pod_sandbox_id", 1, STR, None)],
    "StopPodSandboxResponse": [],
    "RemovePodSandboxRequest": [("pod_sandbox_id", 1, STR, None)],
    "RemovePodSandboxResponse": [],
}
ENUMS = {"NamespaceMode": ["POD", "CONTAINER", "NODE", "TARGET"]}
PACKAGE = "runtime.v1"


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name="runbook_cri_subset.proto", package=PACKAGE, syntax="proto3")
    for name, values in ENUMS.items():
        enum = fd.enum_type.add(name=name)
        for number, value in enumerate(values):
            enum.value.add(name=value, number=number)
    for name, fields in MESSAGES.items():
        msg = fd.message_type.add(name=name)
        for field_name, number, kind, type_name in fields:
            field = msg.field.add(name=field_name, number=number)
            if kind == MAP:  # proto3 maps are repeated nested *Entry messages with map_entry set
                entry = msg.nested_type.add(name=field_name.capitalize() + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, type=STR, label=F.LABEL_OPTIONAL)
                entry.field.add(name="value", number=2, type=STR, label=F.LABEL_OPTIONAL)
                field.type, field.label = MSG, F.LABEL_REPEATED
                field.type_name = f".{PACKAGE}.{name}.{entry.name}"
            else:
                field.type, field.label = kind, F.LABEL_OPTIONAL
                if type_name:
                    field.type_name = f".{PACKAGE}.{type_name}"
    return fd


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file_descriptor())
M = {name: message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))
     for name in MESSAGES}
NODE = ENUMS["NamespaceMode"].index("NODE")


class RuntimeService:
    """The few RuntimeService calls the tests make, over a unix socket."""

    def __init__(self, socket_path: str, timeout: float = 60):
        self.channel = grpc.insecure_channel(f"unix://{socket_path}")
        self.timeout = timeout

    def _call(self, method: str, request):
        response_type = M[type(request).DESCRIPTOR.name.replace("Request", "Response")]
        stub = self.channel.unary_unary(f"/{PACKAGE}.RuntimeService/{method}",
                                        request_serializer=lambda m: m.SerializeToString(),
                                        response_deserializer=response_type.FromString)
        return stub(request, timeout=self.timeout)

    def status(self, verbose: bool = True) -> dict:
        return dict(self._call("Status", M["StatusRequest"](verbose=verbose)).info)

    def run_pod_sandbox(self, name: str, handler: str, log_dir: str, cgroup_parent: str = "") -> str:
        config = M["PodSandboxConfig"](
            metadata=M["PodSandboxMetadata"](name=name, uid=f"uid-{name}", namespace="runbook-test"),
            log_directory=log_dir,  # no hostname: with the host's UTS namespace runc refuses to set one
            linux=M["LinuxPodSandboxConfig"](cgroup_parent=cgroup_parent, security_context=M["LinuxSandboxSecurityContext"](
                namespace_options=M["NamespaceOption"](network=NODE))))  # host network: no CNI needed
        request = M["RunPodSandboxRequest"](config=config, runtime_handler=handler)
        return self._call("RunPodSandbox", request).pod_sandbox_id

    def stop_pod_sandbox(self, sandbox_id: str) -> None:
        self._call("StopPodSandbox", M["StopPodSandboxRequest"](pod_sandbox_id=sandbox_id))

    def remove_pod_sandbox(self, sandbox_id: str) -> None:
        self._call("RemovePodSandbox", M["RemovePodSandboxRequest"](pod_sandbox_id=sandbox_id))

    def close(self) -> None:
        self.channel.close()
