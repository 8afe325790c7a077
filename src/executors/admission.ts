// Places held by requests admitted before they are read (see ServableVersion.admit): a queue
// counts them as taken until the request reaches it, so that what is read and parsed at once
// under overload is bounded by the room the queue has.

/** Gives back the place admit() held; calling it again does nothing. */
export type Release = () => void;

export class AdmissionCount {
  /** Places held now. */
  held = 0;

  hold(): Release {
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
    };
  }
}
