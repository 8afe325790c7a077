// gRPC server reflection (grpc.reflection.v1alpha and v1 ServerReflection, by @grpc/reflection),
// so that `grpcurl localhost:8500 list`, `describe` and calls without .proto files work. TF
// Serving has it since February 2024 (c140e011 links grpc++_reflection into the binary: always
// on, no flag). Listed, as grpc C++ lists them: the services this server registered and
// ServerReflection itself.
//
// The descriptors are built from the same .proto files the server serves, loaded once more
// with field names as written (`model_spec`: protoRoot() camel-cases them for the codecs).
// protobufjs' toDescriptor gives one file per package (e.g. `tensorflow_serving.proto`, as
// @grpc/proto-loader does), lists no imports, names types relative to where they are used and
// map entries unlike protoc; all three are put right here, so that a client building the
// descriptors (grpcurl, Python's descriptor pool) can resolve them.
import { createRequire } from 'node:module';
import path from 'node:path';
import { ReflectionService } from '@grpc/reflection';
import type {
  handleBidiStreamingCall,
  MethodDefinition,
  Server,
  ServerDuplexStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import descriptor, { type IDescriptorProto, type IFileDescriptorProto } from 'protobufjs/ext/descriptor/index.js';
import { loadProtoFiles, SERVICE_FILES } from '../proto/index.js';

const REFLECTION_SERVICES = ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'];

/** reflection.proto as @grpc/reflection serves it: its descriptors are what a client asking about ServerReflection gets. */
function reflectionProtoFiles(): string[] {
  const pkg = path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json'));
  return ['v1', 'v1alpha'].map((v) => path.join(pkg, 'build', 'proto', 'grpc', 'reflection', v, 'reflection.proto'));
}

/** protoc's name for a map field's entry message: `signature_def` → `SignatureDefEntry`. */
const mapEntryName = (field: string) => `${field.replace(/(?:^|_)([a-z])/g, (_, c: string) => c.toUpperCase()).replace(/_/g, '')}Entry`;

/**
 * Rewrites a message's type references as protoc writes them: fully qualified
 * (`.tensorflow.TensorProto`, where protobufjs writes the name relative to the message) and
 * map entries named `<Field>Entry` (protobufjs: `<Field>`, which protoc-built descriptor
 * pools refuse). Adds the fully qualified names it declares and refers to to `declared` and `referred`.
 */
function qualifyMessage(root: protobuf.Root, m: IDescriptorProto, fullName: string, declared: string[], referred: string[]): void {
  declared.push(fullName);
  const type = root.lookupType(fullName);
  for (const f of m.field ?? []) {
    const field = type.fields[f.name!];
    if (field?.map) {
      const entry = m.nestedType!.find((n) => n.options?.mapEntry && n.name === f.typeName)!;
      entry.name = mapEntryName(field.name);
      f.typeName = `${fullName}.${entry.name}`;
      const value = entry.field!.find((e) => e.name === 'value')!;
      if (field.resolvedType) value.typeName = field.resolvedType.fullName;
      if (value.typeName) referred.push(value.typeName);
    } else if (field?.resolvedType) {
      f.typeName = field.resolvedType.fullName;
      referred.push(f.typeName);
    }
  }
  for (const n of m.nestedType ?? []) if (!n.options?.mapEntry) qualifyMessage(root, n, `${fullName}.${n.name}`, declared, referred);
  for (const e of m.enumType ?? []) declared.push(`${fullName}.${e.name}`);
}

/** The files of `root` (one per package) as encoded FileDescriptorProtos, with qualified names and each file's imports. */
function fileDescriptorProtos(root: protobuf.Root): Buffer[] {
  const set = (root as unknown as { toDescriptor(syntax: string): { file: IFileDescriptorProto[] } }).toDescriptor('proto3');
  const fileOf = new Map<string, string>();
  const referredBy = new Map<IFileDescriptorProto, string[]>();
  for (const file of set.file) {
    const scope = file.package ? `.${file.package}` : '';
    const declared: string[] = [];
    const referred: string[] = [];
    for (const m of file.messageType ?? []) qualifyMessage(root, m, `${scope}.${m.name}`, declared, referred);
    for (const e of file.enumType ?? []) declared.push(`${scope}.${e.name}`);
    for (const s of file.service ?? []) {
      const service = root.lookupService(`${scope}.${s.name}`);
      for (const m of s.method ?? []) {
        const method = service.methods[m.name!];
        method.resolve();
        m.inputType = method.resolvedRequestType!.fullName;
        m.outputType = method.resolvedResponseType!.fullName;
        referred.push(m.inputType, m.outputType);
      }
    }
    for (const name of declared) fileOf.set(name, file.name!);
    referredBy.set(file, referred);
  }
  for (const [file, referred] of referredBy) {
    const imports = new Set(referred.map((t) => fileOf.get(t)).filter((f): f is string => f !== undefined && f !== file.name));
    file.dependency = [...imports].sort();
  }
  return set.file.map((f) => Buffer.from(descriptor.FileDescriptorProto.encode(f as protobuf.Message).finish()));
}

/** The reflection services as @grpc/reflection builds them: per method path, its definition and handler. */
type BuiltReflection = Map<string, { method: MethodDefinition<unknown, unknown>; handler: handleBidiStreamingCall<unknown, unknown> }>;

function buildReflection(services: readonly string[]): BuiltReflection {
  const root = loadProtoFiles([...SERVICE_FILES, ...reflectionProtoFiles()], { keepCase: true });
  // @grpc/reflection reads only `fileDescriptorProtos` of a proto-loader package definition.
  const definition = { descriptors: { fileDescriptorProtos: fileDescriptorProtos(root) } } as unknown as ConstructorParameters<
    typeof ReflectionService
  >[0];
  const built: BuiltReflection = new Map();
  const capture = {
    addService(service: ServiceDefinition, impl: UntypedServiceImplementation) {
      for (const [name, method] of Object.entries(service)) {
        built.set(method.path, { method, handler: impl[name] as handleBidiStreamingCall<unknown, unknown> });
      }
    },
  };
  new ReflectionService(definition, { services: [...services, ...REFLECTION_SERVICES] }).addToServer(capture as unknown as Server);
  return built;
}

/**
 * Adds ServerReflection (v1 and v1alpha) to `server`, listing `services` and itself. The
 * descriptors are built at the first reflection call, not at start: building them took 0.4–1 s
 * of the event loop on this project's 2-core machine, at every start of every server, for a
 * service only tools such as grpcurl call. Until then the methods are registered with codecs
 * and handlers that build it when first used.
 */
export function addServerReflection(server: Pick<Server, 'addService'>, services: readonly string[]): void {
  let built: BuiltReflection | undefined;
  const real = (path: string) => (built ??= buildReflection(services)).get(path)!;
  for (const name of REFLECTION_SERVICES) {
    const path = `/${name}/ServerReflectionInfo`;
    const method: MethodDefinition<unknown, unknown> = {
      path,
      requestStream: true,
      responseStream: true,
      requestSerialize: (value) => real(path).method.requestSerialize(value),
      requestDeserialize: (bytes) => real(path).method.requestDeserialize(bytes),
      responseSerialize: (value) => real(path).method.responseSerialize(value),
      responseDeserialize: (bytes) => real(path).method.responseDeserialize(bytes),
    };
    server.addService(
      { ServerReflectionInfo: method },
      { ServerReflectionInfo: (call: ServerDuplexStream<unknown, unknown>) => real(path).handler(call) },
    );
  }
}
