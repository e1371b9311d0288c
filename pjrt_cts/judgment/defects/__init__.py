"""Named defects: the catalogue (catalogue.toml) and the diagnosis that attributes each finding of a run to one."""
from pjrt_cts.judgment.defects.catalogue import (UNCLASSIFIED, CatalogueError, Defect, MatchRule, catalogue_by_id, defect_ids,
                                        load_catalogue)
from pjrt_cts.judgment.defects.diagnosis import (FINDING_OUTCOMES, attribute, attribute_blocked, defect_of, defect_table,
                                                observations)

__all__ = ["FINDING_OUTCOMES", "UNCLASSIFIED", "CatalogueError", "Defect", "MatchRule", "attribute", "attribute_blocked",
           "catalogue_by_id", "defect_ids", "defect_of", "defect_table", "load_catalogue", "observations"]
