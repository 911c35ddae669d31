import GRDB
import PlantStore

/// The collection's schema, as a series of migrations from the first release on. A database written
/// by an older PlantGuide is upgraded in place by running the migrations it lacks; none is ever
/// edited once released, and none discards data.
enum Schema {
    /// Identifiers of every migration this version knows, oldest first.
    static var migrationIdentifiers: [String] { migrator.migrations }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createCollection)
        migrator.registerMigration("v2", migrate: addSchedules)
        migrator.registerMigration("v3", migrate: addLastDone)
        migrator.registerMigration("v4", migrate: addListOrder)
        migrator.registerMigration("v5", migrate: addLearnedNames)
        migrator.registerMigration("v6", migrate: addCoverPhoto)
        migrator.registerMigration("v7", migrate: addLoginSessions)
        migrator.registerMigration("v8", migrate: addRecheckQueue)
        migrator.registerMigration("v9", migrate: addIdentificationTimings)
        migrator.registerMigration("v10", migrate: addPhotoEmbeddings)
        migrator.registerMigration("v12", migrate: addAccounts)
        migrator.registerMigration("v13", migrate: addPlantNetState)
        migrator.registerMigration("v14", migrate: addServerState)
        migrator.registerMigration("v15", migrate: addOwnership)
        migrator.registerMigration("v16", migrate: addChangeStamps)
        migrator.registerMigration("v17", migrate: logPlantChanges)
        migrator.registerMigration("v18", migrate: treatUncheckedToxicityAsToxic)
        migrator.registerMigration("v19", migrate: addSoilChecksAndLearnedIntervals)
        migrator.registerMigration("v20", migrate: followTheCheckedToxicity)
        migrator.registerMigration("v21", migrate: addReminders)
        migrator.registerMigration("v22", migrate: widenReminderKinds)
        migrator.registerMigration("v23", migrate: addMembersToReminders)
        migrator.registerMigration("v24", migrate: addHealthRecords)
        migrator.registerMigration("v25", migrate: letHealthRecordsWait)
        migrator.registerMigration("v26", migrate: addMemberPreferences)
        return migrator
    }

    private static let tasks = "('water', 'fertilize', 'repot', 'mist', 'prune')"

    private static func isHex64(_ column: String) -> String {
        "length(\(column)) = 64 AND \(column) NOT GLOB '*[^0-9a-f]*'"
    }

    private static func isDay(_ column: String) -> String {
        // `date()` alone accepts 2026-02-30; a modifier makes SQLite normalise it, exposing the mismatch.
        "length(\(column)) = 10 AND date(\(column), '+0 days') IS \(column)"
    }

    /// Version 1: plants, photos, identification history, care profiles and care events.
    private static func createCollection(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE plant (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                uuid TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
                name TEXT NOT NULL CHECK (length(trim(name)) > 0),
                species TEXT CHECK (species IS NULL OR length(trim(species)) > 0),
                nickname TEXT,
                room TEXT,
                acquiredOn TEXT CHECK (acquiredOn IS NULL OR (\(isDay("acquiredOn")))),
                notes TEXT,
                createdAt DATETIME NOT NULL,
                updatedAt DATETIME NOT NULL CHECK (updatedAt >= createdAt)
            );
            CREATE TABLE photo (
                sha256 TEXT PRIMARY KEY NOT NULL CHECK (\(isHex64("sha256"))),
                originalSHA256 TEXT NOT NULL CHECK (\(isHex64("originalSHA256"))),
                mediaType TEXT NOT NULL CHECK (mediaType IN
                    ('image/jpeg', 'image/png', 'image/webp', 'image/heic', 'application/octet-stream')),
                byteCount INTEGER NOT NULL CHECK (byteCount > 0),
                width INTEGER CHECK (width IS NULL OR width > 0),
                height INTEGER CHECK (height IS NULL OR height > 0),
                thumbnailSHA256 TEXT CHECK (thumbnailSHA256 IS NULL OR (\(isHex64("thumbnailSHA256")))),
                createdAt DATETIME NOT NULL
            );
            CREATE INDEX photo_originalSHA256 ON photo(originalSHA256);
            CREATE TABLE plantPhoto (
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                photoSHA256 TEXT NOT NULL REFERENCES photo(sha256) ON DELETE RESTRICT,
                addedAt DATETIME NOT NULL,
                PRIMARY KEY (plantId, photoSHA256)
            );
            CREATE INDEX plantPhoto_photoSHA256 ON plantPhoto(photoSHA256);
            CREATE TABLE identification (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                uuid TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
                plantId INTEGER REFERENCES plant(id) ON DELETE SET NULL,
                photoSHA256 TEXT REFERENCES photo(sha256) ON DELETE RESTRICT,
                source TEXT NOT NULL CHECK (source IN ('onDevice', 'plantNetAPI', 'cache')),
                model TEXT,
                predictions TEXT NOT NULL CHECK (json_valid(predictions) AND json_type(predictions) = 'array'),
                uncertain BOOLEAN NOT NULL CHECK (uncertain IN (0, 1)),
                chosenSpecies TEXT CHECK (chosenSpecies IS NULL OR length(trim(chosenSpecies)) > 0),
                identifiedAt DATETIME NOT NULL
            );
            CREATE INDEX identification_plantId ON identification(plantId);
            CREATE INDEX identification_photoSHA256 ON identification(photoSHA256);
            CREATE TABLE careProfile (
                plantId INTEGER PRIMARY KEY REFERENCES plant(id) ON DELETE CASCADE,
                light TEXT NOT NULL CHECK (light IN ('low', 'medium', 'bright indirect', 'direct sun')),
                waterGrowingDays INTEGER NOT NULL CHECK (waterGrowingDays BETWEEN 1 AND 365),
                waterWinterDays INTEGER NOT NULL CHECK (waterWinterDays BETWEEN 1 AND 365),
                fertilizeGrowingDays INTEGER CHECK (fertilizeGrowingDays IS NULL OR fertilizeGrowingDays BETWEEN 1 AND 365),
                mistDays INTEGER CHECK (mistDays IS NULL OR mistDays BETWEEN 1 AND 365),
                repotDays INTEGER CHECK (repotDays IS NULL OR repotDays BETWEEN 1 AND 3650),
                pruneDays INTEGER CHECK (pruneDays IS NULL OR pruneDays BETWEEN 1 AND 3650),
                humidity TEXT NOT NULL CHECK (humidity IN ('low', 'medium', 'high')),
                minTemperature INTEGER NOT NULL CHECK (minTemperature BETWEEN -20 AND 50),
                maxTemperature INTEGER NOT NULL CHECK (maxTemperature BETWEEN -20 AND 50),
                toxicToCats BOOLEAN NOT NULL CHECK (toxicToCats IN (0, 1)),
                toxicToDogs BOOLEAN NOT NULL CHECK (toxicToDogs IN (0, 1)),
                toxicitySource TEXT NOT NULL CHECK (length(toxicitySource) > 0),
                basis TEXT NOT NULL,
                CHECK (minTemperature < maxTemperature)
            );
            CREATE TABLE careEvent (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                uuid TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                task TEXT NOT NULL CHECK (task IN \(tasks)),
                day TEXT NOT NULL CHECK (\(isDay("day"))),
                note TEXT,
                createdAt DATETIME NOT NULL
            );
            CREATE INDEX careEvent_plant_task_day ON careEvent(plantId, task, day);
            """)
    }

    /// Version 2: per-plant schedule overrides, pauses and snoozes; an index for room filters.
    private static func addSchedules(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE careSchedule (
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                task TEXT NOT NULL CHECK (task IN \(tasks)),
                growingDays INTEGER CHECK (growingDays IS NULL OR growingDays BETWEEN 1 AND 3650),
                restDays INTEGER CHECK (restDays IS NULL OR restDays BETWEEN 1 AND 3650),
                paused BOOLEAN NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
                snoozedUntil TEXT CHECK (snoozedUntil IS NULL OR (\(isDay("snoozedUntil")))),
                PRIMARY KEY (plantId, task)
            ) WITHOUT ROWID;
            CREATE INDEX plant_room ON plant(room);
            """)
    }

    /// Version 3: the last day each task was done per plant, kept by triggers so every write path
    /// (logging, import, raw SQL) keeps it right; the due list reads it instead of scanning events.
    private static func addLastDone(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE careLastDone (
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                task TEXT NOT NULL CHECK (task IN \(tasks)),
                day TEXT NOT NULL CHECK (\(isDay("day"))),
                PRIMARY KEY (plantId, task)
            ) WITHOUT ROWID;
            INSERT INTO careLastDone (plantId, task, day)
                SELECT plantId, task, MAX(day) FROM careEvent GROUP BY plantId, task;
            CREATE TRIGGER careEvent_inserted AFTER INSERT ON careEvent BEGIN
                INSERT INTO careLastDone (plantId, task, day) VALUES (new.plantId, new.task, new.day)
                    ON CONFLICT (plantId, task) DO UPDATE SET day = max(day, excluded.day);
            END;
            CREATE TRIGGER careEvent_deleted AFTER DELETE ON careEvent BEGIN
                DELETE FROM careLastDone WHERE plantId = old.plantId AND task = old.task;
                INSERT INTO careLastDone (plantId, task, day)
                    SELECT plantId, task, MAX(day) FROM careEvent WHERE plantId = old.plantId AND task = old.task
                        AND EXISTS (SELECT 1 FROM plant WHERE id = old.plantId)
                    GROUP BY plantId, task;
            END;
            CREATE TRIGGER careEvent_updated AFTER UPDATE OF plantId, task, day ON careEvent BEGIN
                DELETE FROM careLastDone WHERE (plantId = old.plantId AND task = old.task)
                    OR (plantId = new.plantId AND task = new.task);
                INSERT OR REPLACE INTO careLastDone (plantId, task, day)
                    SELECT plantId, task, MAX(day) FROM careEvent
                    WHERE (plantId = old.plantId AND task = old.task) OR (plantId = new.plantId AND task = new.task)
                    GROUP BY plantId, task;
            END;
            """)
    }

    /// Version 4: an index in the plant list's order (rooms A–Z ignoring case, plants without a room
    /// last, then name and id), so listing reads it in order instead of sorting every plant.
    private static func addListOrder(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX plant_listOrder ON plant(room IS NULL, room COLLATE NOCASE, name COLLATE NOCASE, id);
            """)
    }

    /// Version 5: what Pl@ntNet answers taught about species (common names per language, family, GBIF and
    /// POWO ids, with the date), so later answers, online or offline, can name them.
    private static func addLearnedNames(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE learnedSpecies (
                speciesKey TEXT NOT NULL CHECK (length(speciesKey) > 0 AND speciesKey = lower(speciesKey)),
                language TEXT NOT NULL CHECK (length(language) BETWEEN 2 AND 16),
                binomial TEXT NOT NULL CHECK (length(trim(binomial)) > 0),
                commonNames TEXT NOT NULL CHECK (json_valid(commonNames) AND json_type(commonNames) = 'array'),
                family TEXT,
                gbifId TEXT,
                powoId TEXT,
                learnedAt DATETIME NOT NULL,
                PRIMARY KEY (speciesKey, language)
            ) WITHOUT ROWID;
            """)
    }

    /// Version 6: a plant's cover photo, one of its own photos chosen to stand for it. A flag on the plant's
    /// photo link, so the cover goes when the link does; the partial unique index allows one per plant.
    private static func addCoverPhoto(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE plantPhoto ADD COLUMN isCover INTEGER NOT NULL DEFAULT 0 CHECK (isCover IN (0, 1));
            CREATE UNIQUE INDEX plantPhoto_cover ON plantPhoto(plantId) WHERE isCover = 1;
            """)
    }

    /// Version 7: web log-in sessions, so they survive a restart. Only a SHA-256 of each session id is kept.
    private static func addLoginSessions(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE loginSession (
                idHash TEXT PRIMARY KEY NOT NULL CHECK (length(idHash) = 64),
                expiresAt TEXT NOT NULL
            );
            CREATE INDEX loginSession_expiry ON loginSession(expiresAt);
            """)
    }

    /// Version 8: the re-check queue (identifications the device answered, waiting for Pl@ntNet, with their photos and
    /// organs), the link from a re-check's answer to the identification it checked, and the species suggestions a
    /// re-check or a re-scoring makes for a plant, which the owner accepts or dismisses.
    private static func addRecheckQueue(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE identification ADD COLUMN recheckOf INTEGER REFERENCES identification(id) ON DELETE SET NULL;
            CREATE INDEX identification_recheckOf ON identification(recheckOf);
            CREATE TABLE recheck (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                identificationId INTEGER NOT NULL UNIQUE REFERENCES identification(id) ON DELETE CASCADE,
                reason TEXT NOT NULL CHECK (reason IN ('offline', 'quota', 'uncertain')),
                state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed', 'expired')),
                queuedAt DATETIME NOT NULL,
                expiresAt DATETIME,
                attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                claimedUntil DATETIME,
                claimedBy TEXT,
                lastError TEXT,
                resultId INTEGER REFERENCES identification(id) ON DELETE SET NULL,
                finishedAt DATETIME,
                CHECK ((state = 'queued') = (finishedAt IS NULL))
            );
            CREATE INDEX recheck_queue ON recheck(state, queuedAt);
            CREATE TABLE recheckPhoto (
                recheckId INTEGER NOT NULL REFERENCES recheck(id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position >= 0),
                photoSHA256 TEXT NOT NULL REFERENCES photo(sha256) ON DELETE RESTRICT,
                organ TEXT NOT NULL CHECK (organ IN ('leaf', 'flower', 'fruit', 'bark', 'auto', 'habit', 'other')),
                PRIMARY KEY (recheckId, position)
            ) WITHOUT ROWID;
            CREATE INDEX recheckPhoto_photoSHA256 ON recheckPhoto(photoSHA256);
            CREATE TABLE speciesSuggestion (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('recheck', 'rescore')),
                identificationId INTEGER NOT NULL REFERENCES identification(id) ON DELETE CASCADE,
                previousIdentificationId INTEGER REFERENCES identification(id) ON DELETE SET NULL,
                currentSpecies TEXT,
                previousSpecies TEXT,
                previousConfidence REAL CHECK (previousConfidence IS NULL OR previousConfidence BETWEEN 0 AND 1),
                previousModel TEXT,
                suggestedSpecies TEXT NOT NULL CHECK (length(trim(suggestedSpecies)) > 0),
                confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
                model TEXT,
                createdAt DATETIME NOT NULL,
                resolution TEXT CHECK (resolution IS NULL OR resolution IN ('accepted', 'dismissed', 'superseded')),
                resolvedAt DATETIME,
                CHECK ((resolution IS NULL) = (resolvedAt IS NULL))
            );
            CREATE UNIQUE INDEX speciesSuggestion_open ON speciesSuggestion(plantId) WHERE resolution IS NULL;
            """)
    }

    /// Version 9: where the time of each identification went. Filed identifications keep their stage timings
    /// (a JSON object of milliseconds by stage name; `NULL` for those filed before); and every identification,
    /// saved or not, is logged without its photos or answer in `identificationRun`, for the statistics (the log
    /// is pruned by age and count as it is written).
    private static func addIdentificationTimings(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE identification ADD COLUMN timings TEXT
                CHECK (timings IS NULL OR (json_valid(timings) AND json_type(timings) = 'object'));
            CREATE TABLE identificationRun (
                id INTEGER PRIMARY KEY,
                ranAt DATETIME NOT NULL,
                strategy TEXT NOT NULL CHECK (length(strategy) BETWEEN 1 AND 32),
                source TEXT NOT NULL CHECK (source IN ('onDevice', 'plantNetAPI', 'cache')),
                cacheHit BOOLEAN NOT NULL CHECK (cacheHit IN (0, 1)),
                apiCalled BOOLEAN NOT NULL CHECK (apiCalled IN (0, 1)),
                remainingRequests INTEGER CHECK (remainingRequests IS NULL OR remainingRequests >= 0),
                timings TEXT NOT NULL CHECK (json_valid(timings) AND json_type(timings) = 'object'),
                CHECK (NOT (cacheHit AND apiCalled))
            );
            CREATE INDEX identificationRun_ranAt ON identificationRun(ranAt);
            """)
    }

    /// Version 10: one embedding per photo (float16, tagged with the model that made it, so photos indexed by another
    /// model are recomputed), and a plant's confirmed species: what the owner named it, or the identification they
    /// accepted, which makes its photos exemplars of that species. Plants that already have a catalog species were
    /// named by their owner (or created from an accepted identification), so they start confirmed.
    private static func addPhotoEmbeddings(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE photoEmbedding (
                photoSHA256 TEXT PRIMARY KEY NOT NULL REFERENCES photo(sha256) ON DELETE CASCADE,
                model TEXT NOT NULL CHECK (length(model) > 0),
                modelChecksum TEXT CHECK (modelChecksum IS NULL OR length(modelChecksum) > 0),
                dimension INTEGER NOT NULL CHECK (dimension BETWEEN 1 AND 65536),
                vector BLOB NOT NULL CHECK (typeof(vector) = 'blob' AND length(vector) = 2 * dimension),
                createdAt DATETIME NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX photoEmbedding_model ON photoEmbedding(model, modelChecksum);
            ALTER TABLE plant ADD COLUMN confirmedSpecies TEXT
                CHECK (confirmedSpecies IS NULL OR length(trim(confirmedSpecies)) > 0);
            ALTER TABLE plant ADD COLUMN confirmedBy TEXT
                CHECK ((confirmedBy IS NULL) = (confirmedSpecies IS NULL) AND (confirmedBy IS NULL OR confirmedBy IN ('name', 'identification')));
            ALTER TABLE plant ADD COLUMN confirmedAt DATETIME CHECK ((confirmedAt IS NULL) = (confirmedSpecies IS NULL));
            UPDATE plant SET confirmedSpecies = species, confirmedAt = createdAt,
                confirmedBy = CASE WHEN EXISTS (SELECT 1 FROM identification WHERE identification.plantId = plant.id)
                    THEN 'identification' ELSE 'name' END
                WHERE species IS NOT NULL;
            """)
    }

    /// Version 12: accounts. One household (`Home`, id 1) holds every account for now; an account has a name (unique
    /// in any letter case), a role and a PBKDF2 password hash. Log-ins now belong to an account and expire; the
    /// anonymous log-ins of version 7 are dropped, so everyone logs in once more. Failed log-ins are kept per account
    /// and per client address for the throttle, so every server process sees the same count.
    private static func addAccounts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE household (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) BETWEEN 1 AND 80),
                calendarToken TEXT UNIQUE
                    CHECK (calendarToken IS NULL OR (length(calendarToken) = 64 AND calendarToken NOT GLOB '*[^0-9a-f]*')),
                createdAt DATETIME NOT NULL
            );
            INSERT INTO household (id, name, createdAt) VALUES (1, 'Home', strftime('%Y-%m-%d %H:%M:%f', 'now'));
            CREATE TABLE appUser (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE RESTRICT,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE
                    CHECK (length(name) BETWEEN 1 AND 64 AND name NOT GLOB '*[^A-Za-z0-9._-]*'),
                role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
                passwordHash TEXT NOT NULL CHECK (passwordHash LIKE 'pbkdf2-sha256$%'),
                createdAt DATETIME NOT NULL,
                passwordChangedAt DATETIME NOT NULL
            );
            CREATE INDEX appUser_household ON appUser(householdId);
            DROP TABLE loginSession;
            CREATE TABLE loginSession (
                idHash TEXT PRIMARY KEY CHECK (length(idHash) = 64),
                userId INTEGER NOT NULL REFERENCES appUser(id) ON DELETE CASCADE,
                createdAt DATETIME NOT NULL,
                expiresAt DATETIME NOT NULL CHECK (expiresAt > createdAt),
                lastSeenAt DATETIME NOT NULL
            );
            CREATE INDEX loginSession_user ON loginSession(userId);
            CREATE INDEX loginSession_expiry ON loginSession(expiresAt);
            CREATE TABLE loginFailure (
                scope TEXT NOT NULL CHECK (scope IN ('account', 'address')),
                subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 128),
                failedAt DATETIME NOT NULL
            );
            CREATE INDEX loginFailure_subject ON loginFailure(scope, subject, failedAt);
            """)
    }

    /// Version 13: the Pl@ntNet quota and answer cache, which lived in JSON files in the data directory, move into the
    /// database, so every process and every replica counts one quota (a reservation is one atomic update) and shares
    /// one cache. (v11 and v12 are other changes' numbers; migrations run in the order registered.)
    private static func addPlantNetState(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE plantnetQuota (
                day TEXT PRIMARY KEY NOT NULL CHECK (\(isDay("day"))),
                available INTEGER NOT NULL CHECK (available >= 0),
                spent INTEGER NOT NULL DEFAULT 0 CHECK (spent >= 0),
                lastReported INTEGER CHECK (lastReported IS NULL OR lastReported >= 0),
                blockedUntil DATETIME,
                updatedAt DATETIME NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE plantnetCacheEntry (
                exactKey TEXT PRIMARY KEY NOT NULL CHECK (length(exactKey) BETWEEN 1 AND 4096),
                project TEXT NOT NULL CHECK (length(project) > 0),
                language TEXT NOT NULL CHECK (length(language) > 0),
                organs TEXT NOT NULL CHECK (length(organs) > 0),
                perceptualHashes TEXT NOT NULL CHECK (json_valid(perceptualHashes) AND json_type(perceptualHashes) = 'array'),
                answer TEXT NOT NULL CHECK (json_valid(answer) AND json_type(answer) = 'object'),
                storedAt DATETIME NOT NULL,
                lastUsedAt DATETIME NOT NULL CHECK (lastUsedAt >= storedAt),
                hits INTEGER NOT NULL DEFAULT 0 CHECK (hits >= 0)
            ) WITHOUT ROWID;
            CREATE INDEX plantnetCacheEntry_alike ON plantnetCacheEntry(project, language, organs);
            CREATE INDEX plantnetCacheEntry_lru ON plantnetCacheEntry(lastUsedAt);
            CREATE TABLE plantnetCacheCounter (
                name TEXT PRIMARY KEY NOT NULL CHECK (name IN ('misses')),
                value INTEGER NOT NULL CHECK (value >= 0)
            ) WITHOUT ROWID;
            """)
    }

    /// Version 14: what every server replica must see, which lived in the data directory's files or in one process's
    /// memory: the anti-forgery secret, a household's identification settings, and recent identifications ("This is
    /// my plant" after identifying, on whichever replica answers). The calendar address's token is v12's
    /// `household.calendarToken`. A recent upload's photos are files named by their SHA-256 in the data directory's
    /// `uploads` folder, which replicas share; the row names them (`[{sha256, kind, organ}]`) and keeps the outcome
    /// as JSON.
    private static func addServerState(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE serverSecret (
                name TEXT PRIMARY KEY NOT NULL CHECK (name IN ('session')),
                value BLOB NOT NULL CHECK (length(value) = 32),
                createdAt DATETIME NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE householdSetting (
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                key TEXT NOT NULL CHECK (key IN ('identify.strategy', 'identify.threshold')),
                value TEXT NOT NULL,
                updatedAt DATETIME NOT NULL,
                PRIMARY KEY (householdId, key)
            ) WITHOUT ROWID;
            CREATE TABLE recentUpload (
                id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 16 AND 64),
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                sessionHash TEXT NOT NULL CHECK (length(sessionHash) = 64),
                photos TEXT NOT NULL CHECK (json_valid(photos) AND json_type(photos) = 'array'),
                outcome TEXT NOT NULL CHECK (json_valid(outcome)),
                recheckIdentificationId INTEGER REFERENCES identification(id) ON DELETE SET NULL,
                createdAt DATETIME NOT NULL,
                expiresAt DATETIME NOT NULL CHECK (expiresAt > createdAt)
            );
            CREATE INDEX recentUpload_expiry ON recentUpload(expiresAt);
            CREATE INDEX recentUpload_session ON recentUpload(sessionHash, createdAt);
            """)
    }

    /// Version 15: ownership. The root rows get a household (plant; identification, since an unsaved one has no plant;
    /// identificationRun); everything else reaches its household through them. Existing rows go to household 1 (`Home`),
    /// an identification to its plant's. SQLite cannot add a NOT NULL column with a foreign key, so NOT NULL is kept by
    /// triggers; there is no DEFAULT, so a buggy insert fails instead of landing in household 1. An identification's
    /// plant must be of its household (PostgreSQL has a composite foreign key for that). Care events and
    /// identifications remember the name of the account that recorded them. The list indexes lead with the household;
    /// `plant_household` (household, then id) gives the care states their plants in id order without sorting.
    private static func addOwnership(_ db: Database) throws {
        let recordedBy = "recordedBy TEXT CHECK (recordedBy IS NULL OR length(recordedBy) BETWEEN 1 AND 64)"
        var sql = """
            ALTER TABLE plant ADD COLUMN householdId INTEGER REFERENCES household(id) ON DELETE RESTRICT;
            UPDATE plant SET householdId = 1;
            ALTER TABLE identification ADD COLUMN householdId INTEGER REFERENCES household(id) ON DELETE RESTRICT;
            UPDATE identification SET householdId = coalesce((SELECT householdId FROM plant WHERE plant.id = identification.plantId), 1);
            ALTER TABLE identification ADD COLUMN \(recordedBy);
            ALTER TABLE careEvent ADD COLUMN \(recordedBy);
            ALTER TABLE identificationRun ADD COLUMN householdId INTEGER REFERENCES household(id) ON DELETE CASCADE;
            UPDATE identificationRun SET householdId = 1;
            CREATE TRIGGER identification_sameHousehold_insert BEFORE INSERT ON identification
                WHEN NEW.plantId IS NOT NULL AND NEW.householdId IS NOT (SELECT householdId FROM plant WHERE id = NEW.plantId)
                BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: identification household'); END;
            CREATE TRIGGER identification_sameHousehold_update BEFORE UPDATE OF plantId, householdId ON identification
                WHEN NEW.plantId IS NOT NULL AND NEW.householdId IS NOT (SELECT householdId FROM plant WHERE id = NEW.plantId)
                BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: identification household'); END;
            CREATE TRIGGER plant_household_keepsIdentifications BEFORE UPDATE OF householdId ON plant
                WHEN EXISTS (SELECT 1 FROM identification WHERE plantId = NEW.id AND householdId IS NOT NEW.householdId)
                BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: identification household'); END;
            DROP INDEX plant_listOrder;
            CREATE INDEX plant_listOrder ON plant(householdId, room IS NULL, room COLLATE NOCASE, name COLLATE NOCASE, id);
            DROP INDEX plant_room;
            CREATE INDEX plant_room ON plant(householdId, room);
            CREATE INDEX plant_household ON plant(householdId);
            CREATE INDEX identification_household ON identification(householdId, identifiedAt);
            CREATE INDEX identificationRun_household ON identificationRun(householdId, ranAt);

            """
        for table in ["plant", "identification", "identificationRun"] {
            for (event, name) in [("INSERT", "insert"), ("UPDATE OF householdId", "update")] {
                sql += """
                    CREATE TRIGGER \(table)_householdId_required_\(name) BEFORE \(event) ON \(table) WHEN NEW.householdId IS NULL
                        BEGIN SELECT RAISE(ABORT, 'NOT NULL constraint failed: \(table).householdId'); END;

                    """
            }
        }
        try db.execute(sql: sql)
    }

    /// Version 16: a change stamp per household (see `HouseholdCache`), a new value from a counter that only grows,
    /// written by triggers on every change to what the plant list and the care states read: a plant; its care profile and
    /// schedules; its care log (which the last days come from). Every household starts with one. Not copied by
    /// `plantguide migrate` (PostgreSQL keeps its own, from a sequence).
    private static func addChangeStamps(_ db: Database) throws {
        var sql = """
            CREATE TABLE changeStampCounter (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                value INTEGER NOT NULL
            );
            INSERT INTO changeStampCounter (id, value) VALUES (1, 0);
            CREATE TABLE changeStamp (
                householdId INTEGER PRIMARY KEY REFERENCES household(id) ON DELETE CASCADE,
                stamp INTEGER NOT NULL
            );

            """
        sql += """
            UPDATE changeStampCounter SET value = value + 1;
            INSERT INTO changeStamp (householdId, stamp) SELECT id, (SELECT value FROM changeStampCounter) FROM household WHERE true;

            """
        sql += changeStampTriggers(logsPlants: false)
        try db.execute(sql: sql)
    }

    /// The tables a change stamp covers, the triggers' names are made of.
    private static let stampedTables = ["plant", "careProfile", "careSchedule", "careEvent"]

    /// The triggers stamping a household on every change to its plants, their care profiles, schedules and care log; with
    /// `logsPlants`, they also log the plant each change touched with the new stamp (v17's `plantChange`).
    private static func changeStampTriggers(logsPlants: Bool) -> String {
        // The household of a plant id: a plant's own for its rows, through the plant for the others. A row whose plant is
        // gone (a cascade from deleting it) has none: deleting the plant stamped its household (and logged it) already.
        func stamp(_ household: String, plant: String) -> String {
            var sql = """
                UPDATE changeStampCounter SET value = value + 1;
                INSERT INTO changeStamp (householdId, stamp)
                    SELECT id, (SELECT value FROM changeStampCounter) FROM household WHERE id = \(household)
                    ON CONFLICT (householdId) DO UPDATE SET stamp = excluded.stamp;

            """
            if logsPlants {
                sql += """
                    INSERT INTO plantChange (householdId, plantId, stamp)
                        SELECT id, \(plant), (SELECT value FROM changeStampCounter) FROM household WHERE id = \(household)
                        ON CONFLICT (householdId, plantId) DO UPDATE SET stamp = excluded.stamp;

                """
            }
            return sql
        }
        func ofPlant(_ row: String) -> String { "(SELECT householdId FROM plant WHERE id = \(row).plantId)" }
        var sql = """
            CREATE TRIGGER plant_changeStamp_insert AFTER INSERT ON plant BEGIN
            \(stamp("new.householdId", plant: "new.id"))END;
            CREATE TRIGGER plant_changeStamp_delete AFTER DELETE ON plant BEGIN
            \(stamp("old.householdId", plant: "old.id"))END;
            CREATE TRIGGER plant_changeStamp_update AFTER UPDATE ON plant BEGIN
            \(stamp("old.householdId", plant: "old.id"))\(stamp("new.householdId", plant: "new.id"))END;

            """
        for table in stampedTables.dropFirst() {
            sql += """
                CREATE TRIGGER \(table)_changeStamp_insert AFTER INSERT ON \(table) BEGIN
                \(stamp(ofPlant("new"), plant: "new.plantId"))END;
                CREATE TRIGGER \(table)_changeStamp_delete AFTER DELETE ON \(table) BEGIN
                \(stamp(ofPlant("old"), plant: "old.plantId"))END;
                CREATE TRIGGER \(table)_changeStamp_update AFTER UPDATE ON \(table) BEGIN
                \(stamp(ofPlant("old"), plant: "old.plantId"))\(stamp(ofPlant("new"), plant: "new.plantId"))END;

                """
        }
        return sql
    }

    /// Version 17: a log of the plants each household's changes touched (`plantChange`), each with the stamp of its last
    /// change, so a list kept at an older stamp reads only those plants again (see ``KeptLists``). Deleted plants keep
    /// their row, so a list drops them. `since` is the stamp the log is complete from: every household's stamp now.
    private static func logPlantChanges(_ db: Database) throws {
        var sql = """
            ALTER TABLE changeStamp ADD COLUMN since INTEGER NOT NULL DEFAULT 0;
            UPDATE changeStamp SET since = stamp;
            CREATE TABLE plantChange (
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                plantId INTEGER NOT NULL,
                stamp INTEGER NOT NULL,
                PRIMARY KEY (householdId, plantId)
            ) WITHOUT ROWID;
            CREATE INDEX plantChange_householdId_stamp ON plantChange(householdId, stamp);

            """
        for table in stampedTables {
            for event in ["insert", "delete", "update"] { sql += "DROP TRIGGER \(table)_changeStamp_\(event);\n" }
        }
        sql += changeStampTriggers(logsPlants: true)
        try db.execute(sql: sql)
    }

    /// v18: care profiles copied from the guide while 17 of its rows said "not toxic" on a claim their own source said
    /// was not verified now say toxic, as the guide does: a pet owner is never told "no" on an unchecked claim.
    private static func treatUncheckedToxicityAsToxic(_ db: Database) throws {
        // LIKE is ASCII case-insensitive in SQLite (PostgreSQL's pg10 says ILIKE).
        try db.execute(sql: """
            UPDATE careProfile SET toxicToCats = 1, toxicToDogs = 1
            WHERE toxicitySource LIKE '%not verified%' AND (toxicToCats = 0 OR toxicToDogs = 0)
            """)
    }

    /// v22: reminder channels may also be Web Push subscriptions (`webpush`: the push service's endpoint as target, the
    /// subscription's keys as token) and email (`email`). SQLite cannot change a CHECK, so the table is rebuilt, its
    /// rows and ids kept (the digests' claim rows point at them; migrations run with foreign-key checks deferred).
    private static func widenReminderKinds(_ db: Database) throws {
        // The rebuilt table keeps the id counter too, so a removed channel's id is never given again.
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'reminderChannel'") ?? 0
        try db.execute(sql: """
            CREATE TABLE reminderChannel_new (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('ntfy', 'webhook', 'webpush', 'email')),
                target TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 2000),
                token TEXT CHECK (token IS NULL OR length(token) BETWEEN 1 AND 2000),
                minuteOfDay INTEGER NOT NULL CHECK (minuteOfDay BETWEEN 0 AND 1439),
                enabled BOOLEAN NOT NULL DEFAULT 1,
                note TEXT,
                createdAt DATETIME NOT NULL
            );
            INSERT INTO reminderChannel_new SELECT id, householdId, kind, target, token, minuteOfDay, enabled, note, createdAt
                FROM reminderChannel;
            DROP TABLE reminderChannel;
            ALTER TABLE reminderChannel_new RENAME TO reminderChannel;
            CREATE INDEX reminderChannel_household ON reminderChannel (householdId);
            DELETE FROM sqlite_sequence WHERE name IN ('reminderChannel', 'reminderChannel_new');
            """)
        try db.execute(
            sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('reminderChannel', max(?, (SELECT coalesce(max(id), 0) FROM reminderChannel)))",
            arguments: [sequence]
        )
    }

    /// v21: reminder channels per household (`reminderChannel`: ntfy or webhook, where, the access token, the local
    /// time of day, on or off with why) and one claim row per channel and day (`reminderDigest`), whose primary key is
    /// what makes each digest go out once.
    /// v23: a reminder channel may be a member's (their hour, quiet hours and assigned tasks; it goes with the account),
    /// and a plant's care may be assigned to a member or to the members in turn.
    private static func addMembersToReminders(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE reminderChannel ADD COLUMN memberId INTEGER REFERENCES appUser(id) ON DELETE CASCADE;
            ALTER TABLE reminderChannel ADD COLUMN quietFrom INTEGER CHECK (quietFrom IS NULL OR quietFrom BETWEEN 0 AND 1439);
            ALTER TABLE reminderChannel ADD COLUMN quietUntil INTEGER CHECK ((quietUntil IS NULL AND quietFrom IS NULL)
                OR (quietUntil BETWEEN 0 AND 1439 AND quietFrom IS NOT NULL AND quietUntil <> quietFrom));
            CREATE INDEX reminderChannel_member ON reminderChannel (memberId);
            CREATE TABLE careAssignment (
                plantId INTEGER PRIMARY KEY REFERENCES plant(id) ON DELETE CASCADE,
                memberId INTEGER REFERENCES appUser(id) ON DELETE CASCADE,
                turns BOOLEAN NOT NULL DEFAULT 0 CHECK (turns IN (0, 1)),
                CHECK ((memberId IS NULL) = (turns = 1))
            );
            CREATE INDEX careAssignment_member ON careAssignment (memberId);
            """)
    }

    private static func addReminders(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE reminderChannel (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('ntfy', 'webhook')),
                target TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 2000),
                token TEXT CHECK (token IS NULL OR length(token) BETWEEN 1 AND 2000),
                minuteOfDay INTEGER NOT NULL CHECK (minuteOfDay BETWEEN 0 AND 1439),
                enabled BOOLEAN NOT NULL DEFAULT 1,
                note TEXT,
                createdAt DATETIME NOT NULL
            );
            CREATE INDEX reminderChannel_household ON reminderChannel (householdId);
            CREATE TABLE reminderDigest (
                channelId INTEGER NOT NULL REFERENCES reminderChannel(id) ON DELETE CASCADE,
                day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                attempts INTEGER NOT NULL CHECK (attempts >= 1),
                claimedAt DATETIME NOT NULL,
                sentAt DATETIME,
                tasks INTEGER NOT NULL DEFAULT 0 CHECK (tasks >= 0),
                lastError TEXT,
                retryAt DATETIME,
                PRIMARY KEY (channelId, day)
            );
            """)
    }

    /// v20: care profiles copied from the guide take the toxicity the guide gives their genus since every value was
    /// checked against the ASPCA facts (``CareGuideRevisions/toxicity2026November``).
    private static func followTheCheckedToxicity(_ db: Database) throws {
        for revision in CareGuideRevisions.toxicity2026November {
            try db.execute(
                sql: """
                    UPDATE careProfile SET toxicToCats = ?, toxicToDogs = ?, toxicitySource = ?
                    WHERE basis = ? AND (toxicToCats <> ? OR toxicToDogs <> ? OR toxicitySource <> ?)
                    """,
                arguments: [revision.cats, revision.dogs, revision.source, revision.basis, revision.cats, revision.dogs,
                            revision.source]
            )
        }
    }

    /// v19: soil checks in the care log (`careEvent.soil`, `wet` or `dry`, of watering only; a check is not the task
    /// done, so the last-done triggers skip it), the intervals learned from the log per plant and task
    /// (`careSchedule.learned*`, see `IntervalLearner`), where the plant lives (`careSchedule.conditions`, JSON on the
    /// watering row, see `PlantConditions`), and two more household settings (`care.hemisphere`,
    /// `care.timeZone`; SQLite cannot change a CHECK, so the table is made again with its rows).
    private static func addSoilChecksAndLearnedIntervals(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE careEvent ADD COLUMN soil TEXT CHECK (soil IS NULL OR (soil IN ('wet', 'dry') AND task = 'water'));
            CREATE TABLE householdSetting_v19 (
                householdId INTEGER NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                key TEXT NOT NULL CHECK (key IN ('identify.strategy', 'identify.threshold', 'care.hemisphere', 'care.timeZone')),
                value TEXT NOT NULL,
                updatedAt DATETIME NOT NULL,
                PRIMARY KEY (householdId, key)
            ) WITHOUT ROWID;
            INSERT INTO householdSetting_v19 (householdId, key, value, updatedAt)
                SELECT householdId, key, value, updatedAt FROM householdSetting;
            DROP TABLE householdSetting;
            ALTER TABLE householdSetting_v19 RENAME TO householdSetting;
            ALTER TABLE careSchedule ADD COLUMN learnedGrowing REAL
                CHECK (learnedGrowing IS NULL OR learnedGrowing BETWEEN 0.5 AND 2.0);
            ALTER TABLE careSchedule ADD COLUMN learnedRest REAL CHECK (learnedRest IS NULL OR learnedRest BETWEEN 0.5 AND 2.0);
            ALTER TABLE careSchedule ADD COLUMN learnedSince TEXT CHECK (learnedSince IS NULL OR (\(isDay("learnedSince"))));
            ALTER TABLE careSchedule ADD COLUMN conditions TEXT
                CHECK (conditions IS NULL OR (json_valid(conditions) AND json_type(conditions) = 'object' AND task = 'water'));
            DROP TRIGGER careEvent_inserted;
            DROP TRIGGER careEvent_deleted;
            DROP TRIGGER careEvent_updated;
            CREATE TRIGGER careEvent_inserted AFTER INSERT ON careEvent WHEN new.soil IS NULL BEGIN
                INSERT INTO careLastDone (plantId, task, day) VALUES (new.plantId, new.task, new.day)
                    ON CONFLICT (plantId, task) DO UPDATE SET day = max(day, excluded.day);
            END;
            CREATE TRIGGER careEvent_deleted AFTER DELETE ON careEvent WHEN old.soil IS NULL BEGIN
                DELETE FROM careLastDone WHERE plantId = old.plantId AND task = old.task;
                INSERT INTO careLastDone (plantId, task, day)
                    SELECT plantId, task, MAX(day) FROM careEvent
                    WHERE plantId = old.plantId AND task = old.task AND soil IS NULL
                        AND EXISTS (SELECT 1 FROM plant WHERE id = old.plantId)
                    GROUP BY plantId, task;
            END;
            CREATE TRIGGER careEvent_updated AFTER UPDATE OF plantId, task, day, soil ON careEvent BEGIN
                DELETE FROM careLastDone WHERE (plantId = old.plantId AND task = old.task)
                    OR (plantId = new.plantId AND task = new.task);
                INSERT OR REPLACE INTO careLastDone (plantId, task, day)
                    SELECT plantId, task, MAX(day) FROM careEvent
                    WHERE soil IS NULL
                        AND ((plantId = old.plantId AND task = old.task) OR (plantId = new.plantId AND task = new.task))
                    GROUP BY plantId, task;
            END;
            """)
    }

    /// v24: diagnoses kept in a plant's history (`healthRecord`, the disease service's answer as JSON) and their photos
    /// (`healthRecordPhoto`, in the order sent, each with its organ). A record goes with its plant; its photos stay in use
    /// (not orphans) while a record names them.
    private static func addHealthRecords(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE healthRecord (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                uuid TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                diagnosis TEXT NOT NULL CHECK (json_valid(diagnosis) AND json_type(diagnosis) = 'object'),
                note TEXT CHECK (note IS NULL OR length(note) BETWEEN 1 AND 2000),
                recordedBy TEXT,
                recordedAt DATETIME NOT NULL
            );
            CREATE INDEX healthRecord_plantId ON healthRecord (plantId, recordedAt);
            CREATE TABLE healthRecordPhoto (
                recordId INTEGER NOT NULL REFERENCES healthRecord(id) ON DELETE CASCADE,
                position INTEGER NOT NULL CHECK (position BETWEEN 0 AND 4),
                photoSHA256 TEXT NOT NULL REFERENCES photo(sha256) ON DELETE RESTRICT,
                organ TEXT NOT NULL CHECK (organ IN ('leaf', 'flower', 'fruit', 'bark', 'auto')),
                PRIMARY KEY (recordId, position)
            );
            CREATE INDEX healthRecordPhoto_photoSHA256 ON healthRecordPhoto (photoSHA256);
            """)
    }

    /// v25: a health record may wait for Pl@ntNet (kept while it could not be reached): `diagnosis` may be NULL, with
    /// the language to ask in, the tries made, the last error, when sending was given up, and the claim of the process
    /// sending it (the re-check queue's lease rule). SQLite cannot drop a NOT NULL, so the table is made again with its
    /// rows and its id counter; its photos' rows stay (foreign keys are off during a migration).
    private static func letHealthRecordsWait(_ db: Database) throws {
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'healthRecord'") ?? 0
        try db.execute(sql: """
            CREATE TABLE healthRecord_v25 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                uuid TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
                plantId INTEGER NOT NULL REFERENCES plant(id) ON DELETE CASCADE,
                diagnosis TEXT CHECK (diagnosis IS NULL OR (json_valid(diagnosis) AND json_type(diagnosis) = 'object')),
                note TEXT CHECK (note IS NULL OR length(note) BETWEEN 1 AND 2000),
                recordedBy TEXT,
                recordedAt DATETIME NOT NULL,
                language TEXT CHECK (language IS NULL OR length(language) BETWEEN 1 AND 16),
                attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                lastError TEXT,
                gaveUpAt DATETIME,
                claimedUntil DATETIME,
                claimedBy TEXT,
                CHECK (diagnosis IS NOT NULL OR language IS NOT NULL),
                CHECK (diagnosis IS NULL OR gaveUpAt IS NULL)
            );
            INSERT INTO healthRecord_v25 (id, uuid, plantId, diagnosis, note, recordedBy, recordedAt)
                SELECT id, uuid, plantId, diagnosis, note, recordedBy, recordedAt FROM healthRecord;
            DROP TABLE healthRecord;
            ALTER TABLE healthRecord_v25 RENAME TO healthRecord;
            CREATE INDEX healthRecord_plantId ON healthRecord (plantId, recordedAt);
            CREATE INDEX healthRecord_waiting ON healthRecord (recordedAt) WHERE diagnosis IS NULL AND gaveUpAt IS NULL;
            DELETE FROM sqlite_sequence WHERE name IN ('healthRecord', 'healthRecord_v25');
            """)
        try db.execute(
            sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('healthRecord', max(?, (SELECT coalesce(max(id), 0) FROM healthRecord)))",
            arguments: [sequence]
        )
    }

    /// v26: how each member reads PlantGuide (`language`, `temperatureUnit`; NULL = automatic) and the language of their
    /// last web request (`lastLanguage`), for texts sent while they are away.
    private static func addMemberPreferences(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE appUser ADD COLUMN language TEXT
                CHECK (language IS NULL OR (length(language) BETWEEN 2 AND 3 AND language NOT GLOB '*[^a-z]*'));
            ALTER TABLE appUser ADD COLUMN temperatureUnit TEXT
                CHECK (temperatureUnit IS NULL OR temperatureUnit IN ('celsius', 'fahrenheit'));
            ALTER TABLE appUser ADD COLUMN lastLanguage TEXT
                CHECK (lastLanguage IS NULL OR (length(lastLanguage) BETWEEN 2 AND 3 AND lastLanguage NOT GLOB '*[^a-z]*'));
            """)
    }
}
