"""A TF Serving client as Python users write one: grpcio (Debian's python3-grpcio) with stubs
that grpc_tools.protoc generated from test/helpers/client_protos. The TLS tests run it against
tfgate; it prints one JSON line: a list saying what each call gave, in order (one process
for several calls: importing grpcio is most of a call's time).

    python3 grpc_tls_client.py STUBS_DIR '[{"target": "127.0.0.1:8500", "call": "predict",
        "tls": {"ca": "ca.pem", "cert": "client.pem", "key": "client.key"}}, ...]'

call:  predict            PredictionService.Predict of x=[1, 2, 5] on model "model"
       reflection_list    ServerReflection (v1alpha): the services' names
       reflection_predict what grpcurl does with no .proto file: the files that declare
                          tensorflow.serving.PredictionService, from reflection, built into a
                          descriptor pool of their own; the request made from those
                          descriptors alone, by field name; Predict called with it
tls:   null for a plaintext channel; else the CA to trust and, optionally, the client's own
       certificate and key.
Each result: {"ok": true, ...} or {"ok": false, "code": "UNAVAILABLE", "details": "..."}.
"""
import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

sys.path.insert(0, sys.argv[1])
import model_spec_pb2  # noqa: E402,F401  (imported by the generated modules)
import prediction_service_pb2  # noqa: E402
import prediction_service_pb2_grpc  # noqa: E402
import reflection_pb2  # noqa: E402
import reflection_pb2_grpc  # noqa: E402
import tensorflow_pb2  # noqa: E402

TIMEOUT_S = 20


def channel(args):
    tls = args.get("tls")
    if tls is None:
        return grpc.insecure_channel(args["target"])
    read = lambda name: open(tls[name], "rb").read() if tls.get(name) else None  # noqa: E731
    creds = grpc.ssl_channel_credentials(root_certificates=read("ca"), private_key=read("key"), certificate_chain=read("cert"))
    # A Unix socket has no host name to check the certificate against.
    options = [("grpc.ssl_target_name_override", "localhost")] if args["target"].startswith("unix:") else []
    return grpc.secure_channel(args["target"], creds, options)


def reflection_ask(chan, **request):
    stub = reflection_pb2_grpc.ServerReflectionStub(chan)
    [answer] = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(**request)]), timeout=TIMEOUT_S))
    if answer.HasField("error_response"):
        raise RuntimeError(answer.error_response.error_message)
    return answer


def predict(chan):
    request = prediction_service_pb2.PredictRequest()
    request.model_spec.name = "model"
    x = request.inputs["x"]
    x.dtype = tensorflow_pb2.DT_FLOAT
    x.tensor_shape.dim.add().size = 3
    x.float_val.extend([1.0, 2.0, 5.0])
    response = prediction_service_pb2_grpc.PredictionServiceStub(chan).Predict(request, timeout=TIMEOUT_S)
    return {"y": list(response.outputs["y"].float_val)}


def reflection_predict(chan):
    answer = reflection_ask(chan, file_containing_symbol="tensorflow.serving.PredictionService")
    files = [descriptor_pb2.FileDescriptorProto.FromString(b) for b in answer.file_descriptor_response.file_descriptor_proto]
    pool = descriptor_pool.DescriptorPool()
    added = set()
    while len(added) < len(files):  # each file after the files it imports, as a pool needs them
        ready = [f for f in files if f.name not in added and all(d in added for d in f.dependency)]
        if not ready:
            raise RuntimeError("imports that no returned file satisfies: %s" % [(f.name, list(f.dependency)) for f in files if f.name not in added])
        for f in ready:
            pool.Add(f)
            added.add(f.name)
    method = pool.FindServiceByName("tensorflow.serving.PredictionService").FindMethodByName("Predict")
    factory = message_factory.MessageFactory(pool)
    make = getattr(message_factory, "GetMessageClass", None) or factory.GetPrototype
    Request, Response = make(method.input_type), make(method.output_type)
    request = Request()
    request.model_spec.name = "model"
    x = request.inputs["x"]
    x.dtype = pool.FindEnumTypeByName("tensorflow.DataType").values_by_name["DT_FLOAT"].number
    x.tensor_shape.dim.add().size = 3
    x.float_val.extend([1.0, 2.0, 5.0])
    call = chan.unary_unary("/tensorflow.serving.PredictionService/Predict", request_serializer=Request.SerializeToString, response_deserializer=Response.FromString)
    response = call(request, timeout=TIMEOUT_S)
    return {"files": sorted(added), "request_fields": [f.name for f in method.input_type.fields], "y": list(response.outputs["y"].float_val)}


CALLS = {
    "predict": predict,
    "reflection_list": lambda chan: {"services": sorted(s.name for s in reflection_ask(chan, list_services="*").list_services_response.service)},
    "reflection_predict": reflection_predict,
}

def run(args):
    try:
        with channel(args) as chan:
            return {"ok": True, **CALLS[args["call"]](chan)}
    except grpc.RpcError as e:
        return {"ok": False, "code": e.code().name, "details": e.details()}


print(json.dumps([run(args) for args in json.loads(sys.argv[2])]))
