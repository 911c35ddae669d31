import Foundation
import PlantGuideCore

/// Who looks after a plant: one member, or the members in turn.
public enum CareAssignee: Sendable, Hashable {
    /// One member (an account of the plant's household), by id.
    case member(Int64)
    /// The household's members in turn: each task goes to the member after the one who did it last (by account id;
    /// the first member when nobody in the household did it yet).
    case turns
}

/// A household member as reminders and assignments name them.
public struct HouseholdMember: Sendable, Hashable, Codable {
    /// The account's id.
    public var id: Int64
    /// The account's name (what the care log records as who did a task).
    public var name: String

    /// Describes a member.
    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

/// Who looks after each plant of one household, and whose turn each task of a plant taking turns is.
public struct CareAssignments: Sendable, Hashable {
    /// The household's members, by id.
    public var members: [HouseholdMember]
    /// The plants assigned to someone (a plant not here is everyone's).
    public var plants: [Int64: CareAssignee]
    /// For plants taking turns: who did each task last, by the name the care log recorded.
    public var lastDoneBy: [Int64: [CareTask: String]]

    /// The assignments as a store reads them.
    public init(members: [HouseholdMember], plants: [Int64: CareAssignee], lastDoneBy: [Int64: [CareTask: String]]) {
        self.members = members.sorted { $0.id < $1.id }
        self.plants = plants
        self.lastDoneBy = lastDoneBy
    }

    /// Nobody is assigned anything.
    public static let none = CareAssignments(members: [], plants: [:], lastDoneBy: [:])

    /// The member a plant's task is for now, or `nil` when it is everyone's (unassigned, or a household without members).
    public func member(for plant: Int64, task: CareTask) -> HouseholdMember? {
        switch plants[plant] {
        case nil:
            return nil
        case .member(let id)?:
            return members.first { $0.id == id }
        case .turns?:
            guard !members.isEmpty else { return nil }
            guard let last = lastDoneBy[plant]?[task],
                  let index = members.firstIndex(where: { $0.name.caseInsensitiveCompare(last) == .orderedSame })
            else { return members[0] }
            return members[(index + 1) % members.count]
        }
    }

    /// Whether a member's reminders list a plant's task: it is everyone's, or it is that member's now.
    public func isFor(member: Int64, plant: Int64, task: CareTask) -> Bool {
        guard let assigned = self.member(for: plant, task: task) else { return true }
        return assigned.id == member
    }
}
