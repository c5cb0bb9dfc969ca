public enum WhereaboutsInfo { public static let version = "0.1.0" }
