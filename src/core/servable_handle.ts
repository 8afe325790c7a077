// What a caller asks the manager for, and what it holds while using the answer: TF Serving's
// ServableRequest (manager.h) and ServableHandle (servable_handle.h). Every transport speaks
// these; gRPC's and REST's ModelSpec is the wire form of a ServableRequest.

/** A model name and at most one of version / label; neither means the latest available. */
export interface ServableRequest {
  name: string;
  version?: number;
  label?: string;
}

/**
 * One version held for the duration of one request. The version is not unloaded while any
 * handle on it is unreleased, so release() must be called exactly once, in a finally block;
 * further calls do nothing. Not tied to a thread: any async continuation may release it.
 */
export interface ServableHandle<T> {
  readonly modelName: string;
  readonly version: number;
  readonly servable: T;
  release(): void;
}
