export class ProofCache {}
