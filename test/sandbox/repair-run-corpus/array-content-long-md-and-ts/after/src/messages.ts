export const missingSpec = (projectId: string) =>
  `Project "${projectId}" is configured with gitFlow=\"ralph\" but is missing \"ralphSpec\"`

export const unknownFlow = (projectId: string, flow: string) =>
  `Project "${projectId}" has an unknown gitFlow \"${flow}\"`
