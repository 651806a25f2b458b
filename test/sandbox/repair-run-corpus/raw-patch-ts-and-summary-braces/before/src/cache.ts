export class ProofCache {
  private entries = new Map<string, Entry>()

  set(request: ProofRequest) {
    this.entries.set(request.id, { proof: request.currentProof, at: Date.now() })
  }
}
