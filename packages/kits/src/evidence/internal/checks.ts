import { DuplicateIdError, describeValue, refuseField } from '@agent-core/core'
import type { EvidenceRequirement, Observation } from '../observation.js'

/** Checks a list of observations: a dense array of objects with a non-empty string `sourceId`. */
export function checkObservations<Item>(
  observations: unknown,
  field: string,
  sourceIdOf: (observation: Item) => unknown = (observation) => (observation as Observation).sourceId,
): readonly Item[] {
  if (!Array.isArray(observations)) {
    refuseField(
      'input',
      field,
      `must be an array of observations, but got ${describeValue(observations)}`,
      observations,
    )
  }
  const list: Item[] = []
  for (let index = 0; index < observations.length; index++) {
    if (!(index in observations)) {
      refuseField(
        'input',
        `${field}[${index}]`,
        'is a hole in a sparse array; pass a dense array of observations',
        undefined,
        { received: 'a hole' },
      )
    }
    const observation: unknown = observations[index]
    if (typeof observation !== 'object' || observation === null) {
      refuseField(
        'input',
        `${field}[${index}]`,
        `must be an observation object with a sourceId, but got ${describeValue(observation)}`,
        observation,
      )
    }
    const sourceId = sourceIdOf(observation as Item)
    if (typeof sourceId !== 'string' || sourceId === '') {
      refuseField(
        'input',
        `${field}[${index}].sourceId`,
        `must be a non-empty string (the request's reference id of its source), but got ${describeValue(sourceId)}`,
        sourceId,
      )
    }
    list.push(observation as Item)
  }
  return Object.freeze(list)
}

/** Checks one requirement's shape; an ArtifactReference is refused with a message that says why. */
export function checkRequirement(requirement: unknown, field: string): EvidenceRequirement {
  if (typeof requirement !== 'object' || requirement === null) {
    refuseField(
      'input',
      field,
      `must be an evidence requirement { id, providerId }, but got ${describeValue(requirement)}`,
      requirement,
    )
  }
  const { id, providerId } = requirement as Partial<EvidenceRequirement>
  if (providerId === undefined && ('artifactId' in requirement || 'resolverId' in requirement)) {
    refuseField(
      'input',
      field,
      'looks like an ArtifactReference (resolverId / artifactId). An evidence requirement describes what must be observed, not a resource: give it an id and the providerId of the checklist provider that decides it',
      requirement,
      { received: 'an artifact reference' },
    )
  }
  if (typeof id !== 'string' || id === '') {
    refuseField('input', `${field}.id`, `must be a non-empty string, but got ${describeValue(id)}`, id)
  }
  if (typeof providerId !== 'string' || providerId === '') {
    refuseField(
      'input',
      `${field}.providerId`,
      `must name a checklist provider, but got ${describeValue(providerId)}`,
      providerId,
    )
  }
  return requirement as EvidenceRequirement
}

/** Checks a list of requirements: an array of requirements with unique ids. */
export function checkRequirements(requirements: unknown, field: string): readonly EvidenceRequirement[] {
  if (!Array.isArray(requirements)) {
    refuseField(
      'input',
      field,
      `must be an array of evidence requirements, but got ${describeValue(requirements)}`,
      requirements,
    )
  }
  const seen = new Set<string>()
  const list: EvidenceRequirement[] = []
  for (let index = 0; index < requirements.length; index++) {
    const requirement = checkRequirement(
      index in requirements ? requirements[index] : undefined,
      `${field}[${index}]`,
    )
    if (seen.has(requirement.id)) {
      throw new DuplicateIdError(
        `Requirement id "${requirement.id}" appears twice in ${field}; requirement ids must be unique.`,
        {
          details: { id: requirement.id, kind: 'evidence requirement' },
        },
      )
    }
    seen.add(requirement.id)
    list.push(requirement)
  }
  return list
}
