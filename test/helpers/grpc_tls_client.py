"""A TF Serving client as Python users write one: grpcio (Debian's python3-grpcio) with stubs
that grpc_tools.protoc generated from test/helpers/client_protos. The TLS tests run it against
tfgate; it prints one JSON line: a list saying what each call gave, in order (one process
for several calls: importing grpcio is most of a call's time).

    python3 grpc_tls_client.py STUBS_DIR '[{"target": "127.0.0.1:8500", "call": "predict",
        "tls": {"ca": "ca.pem", "cert": "client.pem", "key": "client.key"}}, ...]'

call:  predict            PredictionService.Predict of x=[1, 2, 5] on model "model"
tls:   null for a plaintext channel; else the CA to trust and, optionally, the client's own
       certificate and key.
Each result: {"ok": true, ...} or {"ok": false, "code": "UNAVAILABLE", "details": "..."}.
"""
import json
import sys

import grpc

sys.path.insert(0, sys.argv[1])
import model_spec_pb2  # noqa: E402,F401  (imported by the generated modules)
import prediction_service_pb2  # noqa: E402
import prediction_service_pb2_grpc  # noqa: E402
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


def predict(chan):
    request = prediction_service_pb2.PredictRequest()
    request.model_spec.name = "model"
    x = request.inputs["x"]
    x.dtype = tensorflow_pb2.DT_FLOAT
    x.tensor_shape.dim.add().size = 3
    x.float_val.extend([1.0, 2.0, 5.0])
    response = prediction_service_pb2_grpc.PredictionServiceStub(chan).Predict(request, timeout=TIMEOUT_S)
    return {"y": list(response.outputs["y"].float_val)}


CALLS = {
    "predict": predict,
}

def run(args):
    try:
        with channel(args) as chan:
            return {"ok": True, **CALLS[args["call"]](chan)}
    except grpc.RpcError as e:
        return {"ok": False, "code": e.code().name, "details": e.details()}


print(json.dumps([run(args) for args in json.loads(sys.argv[2])]))
