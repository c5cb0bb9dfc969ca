import Whereabouts
print(WhereaboutsInfo.version)
