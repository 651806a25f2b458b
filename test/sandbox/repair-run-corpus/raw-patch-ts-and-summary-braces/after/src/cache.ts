export class ProofCache {
  private entries = new Map<string, Entry>()

  set(request: ProofRequest) {
    if (!request.currentProof) throw new Error(`Request "${request.id}" has no \"currentProof\"`)
    this.entries.set(`${request.id}:${request.version}`, { ...structuredClone({ currentProof: request.currentProof }), at: Date.now() })
  }
}
