"""A minimal CRI (runtime.v1) client: only the calls the pod step makes (status, a pod sandbox, one container,
an image's status and pull), over containerd's unix socket.

The messages are declared here, field by field, with the CRI's published field numbers, and built at run time
with descriptor_pb2: nothing is generated from another project's .proto files. Fields an answer carries that
are not declared here are skipped by protobuf, so a newer containerd's answers still parse.
"""
from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
STR, BOOL, U32, I32, I64, MSG, ENUM = (F.TYPE_STRING, F.TYPE_BOOL, F.TYPE_UINT32, F.TYPE_INT32, F.TYPE_INT64,
                                       F.TYPE_MESSAGE, F.TYPE_ENUM)
MAP = "map"        # a map<string,string> field
REPEATED = "[]"    # suffix of a repeated field's kind: (STR, REPEATED) or (MSG, REPEATED)
PACKAGE = "runtime.v1"

# message name -> [(field name, number, kind, message or enum type name, repeated)]
MESSAGES = {
    "VersionRequest": [("version", 1, STR, None, False)],
    "VersionResponse": [("version", 1, STR, None, False), ("runtime_name", 2, STR, None, False),
                        ("runtime_version", 3, STR, None, False), ("runtime_api_version", 4, STR, None, False)],
    "StatusRequest": [("verbose", 1, BOOL, None, False)],
    "RuntimeHandler": [("name", 1, STR, None, False)],  # CRI 1.30+ (containerd 2.x); 1.6 sends none
    "StatusResponse": [("info", 2, MAP, None, False), ("runtime_handlers", 3, MSG, "RuntimeHandler", True)],
    "KeyValue": [("key", 1, STR, None, False), ("value", 2, STR, None, False)],
    "PodSandboxMetadata": [("name", 1, STR, None, False), ("uid", 2, STR, None, False),
                           ("namespace", 3, STR, None, False), ("attempt", 4, U32, None, False)],
    "NamespaceOption": [("network", 1, ENUM, "NamespaceMode", False), ("pid", 2, ENUM, "NamespaceMode", False),
                        ("ipc", 3, ENUM, "NamespaceMode", False)],
    "LinuxSandboxSecurityContext": [("namespace_options", 1, MSG, "NamespaceOption", False)],
    "LinuxPodSandboxConfig": [("cgroup_parent", 1, STR, None, False),
                              ("security_context", 2, MSG, "LinuxSandboxSecurityContext", False)],
    "PodSandboxConfig": [("metadata", 1, MSG, "PodSandboxMetadata", False), ("hostname", 2, STR, None, False),
                         ("log_directory", 3, STR, None, False), ("linux", 8, MSG, "LinuxPodSandboxConfig", False)],
    "RunPodSandboxRequest": [("config", 1, MSG, "PodSandboxConfig", False), ("runtime_handler", 2, STR, None, False)],
    "RunPodSandboxResponse": [("pod_sandbox_id", 1, STR, None, False)],
    "StopPodSandboxRequest": [("pod_sandbox_id", 1, STR, None, False)],
    "StopPodSandboxResponse": [],
    "RemovePodSandboxRequest": [("pod_sandbox_id", 1, STR, None, False)],
    "RemovePodSandboxResponse": [],
    "ImageSpec": [("image", 1, STR, None, False)],
    "ContainerMetadata": [("name", 1, STR, None, False), ("attempt", 2, U32, None, False)],
    "CDIDevice": [("name", 1, STR, None, False)],
    "ContainerConfig": [("metadata", 1, MSG, "ContainerMetadata", False), ("image", 2, MSG, "ImageSpec", False),
                        ("command", 3, STR, None, True), ("args", 4, STR, None, True),
                        ("envs", 6, MSG, "KeyValue", True), ("log_path", 11, STR, None, False),
                        ("CDI_devices", 17, MSG, "CDIDevice", True)],
    "CreateContainerRequest": [("pod_sandbox_id", 1, STR, None, False), ("config", 2, MSG, "ContainerConfig", False),
                               ("sandbox_config", 3, MSG, "PodSandboxConfig", False)],
    "CreateContainerResponse": [("container_id", 1, STR, None, False)],
    "StartContainerRequest": [("container_id", 1, STR, None, False)],
    "StartContainerResponse": [],
    "ContainerStatusRequest": [("container_id", 1, STR, None, False), ("verbose", 2, BOOL, None, False)],
    "ContainerStatus": [("id", 1, STR, None, False), ("state", 3, ENUM, "ContainerState", False),
                        ("exit_code", 7, I32, None, False), ("reason", 10, STR, None, False),
                        ("message", 11, STR, None, False), ("log_path", 15, STR, None, False)],
    "ContainerStatusResponse": [("status", 1, MSG, "ContainerStatus", False), ("info", 2, MAP, None, False)],
    "StopContainerRequest": [("container_id", 1, STR, None, False), ("timeout", 2, I64, None, False)],
    "StopContainerResponse": [],
    "RemoveContainerRequest": [("container_id", 1, STR, None, False)],
    "RemoveContainerResponse": [],
    "Image": [("id", 1, STR, None, False), ("repo_tags", 2, STR, None, True)],
    "ImageStatusRequest": [("image", 1, MSG, "ImageSpec", False), ("verbose", 2, BOOL, None, False)],
    "ImageStatusResponse": [("image", 1, MSG, "Image", False)],
    "PullImageRequest": [("image", 1, MSG, "ImageSpec", False), ("sandbox_config", 3, MSG, "PodSandboxConfig", False)],
    "PullImageResponse": [("image_ref", 1, STR, None, False)],
}
ENUMS = {"NamespaceMode": ["POD", "CONTAINER", "NODE", "TARGET"],
         "ContainerState": ["CONTAINER_CREATED", "CONTAINER_RUNNING", "CONTAINER_EXITED", "CONTAINER_UNKNOWN"]}
# which service answers each call
IMAGE_CALLS = ("ImageStatus", "PullImage")


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name="runbook_cri_subset.proto", package=PACKAGE, syntax="proto3")
    for name, values in ENUMS.items():
        enum = fd.enum_type.add(name=name)
        for number, value in enumerate(values):
            enum.value.add(name=value, number=number)
    for name, fields in MESSAGES.items():
        msg = fd.message_type.add(name=name)
        for field_name, number, kind, type_name, repeated in fields:
            field = msg.field.add(name=field_name, number=number)
            if kind == MAP:  # proto3 maps are repeated nested *Entry messages with map_entry set
                entry = msg.nested_type.add(name=field_name.capitalize() + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, type=STR, label=F.LABEL_OPTIONAL)
                entry.field.add(name="value", number=2, type=STR, label=F.LABEL_OPTIONAL)
                field.type, field.label = MSG, F.LABEL_REPEATED
                field.type_name = f".{PACKAGE}.{name}.{entry.name}"
                continue
            field.type, field.label = kind, F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL
            if type_name:
                field.type_name = f".{PACKAGE}.{type_name}"
    return fd


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file_descriptor())
M = {name: message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.{name}")) for name in MESSAGES}
NODE = ENUMS["NamespaceMode"].index("NODE")
EXITED = ENUMS["ContainerState"].index("CONTAINER_EXITED")
RpcError = grpc.RpcError


def said(exc: grpc.RpcError) -> str:
    """containerd's own words in a failed call."""
    details = exc.details() if hasattr(exc, "details") else None
    return (details or str(exc)).strip()


class RuntimeService:
    """The RuntimeService and ImageService calls of the pod step, over a unix socket."""

    def __init__(self, socket_path: str, timeout: float = 60):
        self.channel = grpc.insecure_channel(f"unix://{socket_path}")
        self.timeout = timeout

    def _call(self, method: str, request):
        response_type = M[type(request).DESCRIPTOR.name.replace("Request", "Response")]
        service = "ImageService" if method in IMAGE_CALLS else "RuntimeService"
        stub = self.channel.unary_unary(f"/{PACKAGE}.{service}/{method}",
                                        request_serializer=lambda m: m.SerializeToString(),
                                        response_deserializer=response_type.FromString)
        return stub(request, timeout=self.timeout)

    def version(self) -> tuple[str, str]:
        answer = self._call("Version", M["VersionRequest"](version="v1"))
        return answer.runtime_name, answer.runtime_version

    def status(self, verbose: bool = True) -> dict:
        return dict(self._call("Status", M["StatusRequest"](verbose=verbose)).info)

    def runtime_handlers(self) -> list[str]:
        """The handlers the CRI plugin serves (containerd 2.x; the default one is also listed as "")."""
        return [h.name for h in self._call("Status", M["StatusRequest"](verbose=False)).runtime_handlers]

    @staticmethod
    def pod_config(name: str, log_dir: str, cgroup_parent: str = "", namespace: str = "runbook-smoke"):
        return M["PodSandboxConfig"](
            metadata=M["PodSandboxMetadata"](name=name, uid=f"uid-{name}", namespace=namespace),
            log_directory=log_dir,  # no hostname: with the host's UTS namespace runc refuses to set one
            linux=M["LinuxPodSandboxConfig"](cgroup_parent=cgroup_parent, security_context=M["LinuxSandboxSecurityContext"](
                namespace_options=M["NamespaceOption"](network=NODE))))  # host network: no CNI needed

    def run_pod_sandbox(self, config, handler: str) -> str:
        return self._call("RunPodSandbox", M["RunPodSandboxRequest"](config=config, runtime_handler=handler)).pod_sandbox_id

    def stop_pod_sandbox(self, sandbox_id: str) -> None:
        self._call("StopPodSandbox", M["StopPodSandboxRequest"](pod_sandbox_id=sandbox_id))

    def remove_pod_sandbox(self, sandbox_id: str) -> None:
        self._call("RemovePodSandbox", M["RemovePodSandboxRequest"](pod_sandbox_id=sandbox_id))

    def image_present(self, image: str) -> bool:
        return bool(self._call("ImageStatus", M["ImageStatusRequest"](image=M["ImageSpec"](image=image))).image.id)

    def pull_image(self, image: str, sandbox_config) -> str:
        request = M["PullImageRequest"](image=M["ImageSpec"](image=image), sandbox_config=sandbox_config)
        return self._call("PullImage", request).image_ref

    def create_container(self, sandbox_id: str, sandbox_config, *, name: str, image: str, command: list[str],
                         env: dict[str, str], log_path: str, cdi_devices: tuple[str, ...] = ()) -> str:
        config = M["ContainerConfig"](
            metadata=M["ContainerMetadata"](name=name), image=M["ImageSpec"](image=image), command=command,
            envs=[M["KeyValue"](key=k, value=v) for k, v in env.items()], log_path=log_path,
            CDI_devices=[M["CDIDevice"](name=d) for d in cdi_devices])
        request = M["CreateContainerRequest"](pod_sandbox_id=sandbox_id, config=config, sandbox_config=sandbox_config)
        return self._call("CreateContainer", request).container_id

    def start_container(self, container_id: str) -> None:
        self._call("StartContainer", M["StartContainerRequest"](container_id=container_id))

    def container_status(self, container_id: str):
        return self._call("ContainerStatus", M["ContainerStatusRequest"](container_id=container_id)).status

    def stop_container(self, container_id: str, timeout: int = 5) -> None:
        self._call("StopContainer", M["StopContainerRequest"](container_id=container_id, timeout=timeout))

    def remove_container(self, container_id: str) -> None:
        self._call("RemoveContainer", M["RemoveContainerRequest"](container_id=container_id))

    def close(self) -> None:
        self.channel.close()
